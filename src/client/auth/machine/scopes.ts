/**
 * The space-separated union of scope strings, in first-seen order, without duplicates; undefined
 * when there is no scope at all (then no `scope` parameter is sent).
 *
 * @example
 * unionScopes('a b', 'b c'); // 'a b c'
 */
export function unionScopes(...scopes: (string | undefined)[]): string | undefined {
  const all = new Set<string>();
  for (const scope of scopes) for (const item of scope?.split(' ') ?? []) if (item) all.add(item);
  return all.size === 0 ? undefined : [...all].join(' ');
}
