/** One namespace rule and one key prefix for the relay, the session store and the event store. */
import { describe, expect, it } from 'vitest';
import { RedisEventStore, RedisRelay, RedisSessionStore, type RedisBackplaneClient } from 'keel-mcp/redis';
import { checkName, keyPrefix } from '../../src/adapters/redis/namespace.js';

// The constructors send nothing: a client that fails every call proves it.
const client = new Proxy({} as RedisBackplaneClient, {
  get: () => () => {
    throw new Error('no command expected');
  },
});

const makers = {
  RedisRelay: (namespace: string) => new RedisRelay({ client, namespace }),
  RedisSessionStore: (namespace: string) => new RedisSessionStore({ client, namespace }),
  RedisEventStore: (namespace: string) => new RedisEventStore({ client, namespace }),
};

describe('Redis namespaces', () => {
  it('keyPrefix: keel:<namespace>, default "default"', () => {
    expect(keyPrefix('X', 'weather.v2_a-b')).toBe('keel:weather.v2_a-b');
    expect(keyPrefix('X')).toBe('keel:default');
  });

  it('every adapter refuses the same names, with a TypeError naming itself', () => {
    for (const [owner, make] of Object.entries(makers)) {
      for (const namespace of ['', 'a:b', 'a{b}', 'a b', '*', 'a\nb', 'é']) {
        expect(() => make(namespace), `${owner} ${JSON.stringify(namespace)}`).toThrow(
          new TypeError(`${owner}: namespace must be letters, digits, '.', '_' or '-'`),
        );
      }
      expect(() => make('ok.Name_1-2'), owner).not.toThrow();
    }
    expect(() => checkName('RedisRelay', 'nodeId', 'x:y')).toThrow(/RedisRelay: nodeId must be/);
  });

  it('the adapters of one namespace share its key space', () => {
    const relay = makers.RedisRelay('ns1');
    const events = makers.RedisEventStore('ns1');
    expect(relay.nodeKey('n')).toBe('keel:ns1:node:n');
    expect(events.keysOf('s')).toEqual(['keel:ns1:es:{s}', 'keel:ns1:es-meta:{s}']);
  });
});
