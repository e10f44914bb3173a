/**
 * Names inside Redis: one check and one key prefix for every Keel adapter, so the relay, the
 * session store and the event store of one namespace always share (and never leave) its key space.
 */

/** Letters, digits, `.`, `_`, `-`: no `:` (key separator), `{}` (cluster hash tags), `*` or spaces. */
const NAME = /^[A-Za-z0-9._-]+$/;

/**
 * `value` if it is a safe name part, else a `TypeError` naming `owner` and `what`.
 *
 * @example
 * checkName('RedisRelay', 'nodeId', nodeId);
 */
export function checkName(owner: string, what: string, value: string): string {
  if (!NAME.test(value)) throw new TypeError(`${owner}: ${what} must be letters, digits, '.', '_' or '-'`);
  return value;
}

/**
 * The prefix of every key and channel of `namespace` (default `'default'`): `keel:<namespace>`.
 * Throws a `TypeError` naming `owner` when the namespace could break out of its key space.
 *
 * @example
 * keyPrefix('RedisEventStore', 'weather'); // 'keel:weather'
 */
export function keyPrefix(owner: string, namespace = 'default'): string {
  return `keel:${checkName(owner, 'namespace', namespace)}`;
}
