/**
 * Issue 9 item 11: the public in-memory transport keeps no record of the messages it carried (the
 * tests' recorder lives in test/helpers/recording-transport.ts).
 */
import { expect, test } from 'vitest';
import { createMemoryPair } from 'keel-mcp/memory';

test('MemoryTransport holds on to nothing it sent once the peer has read it', async () => {
  const [a, b] = createMemoryPair();
  const reader = b[Symbol.asyncIterator]();
  const message = { jsonrpc: '2.0' as const, method: 'notifications/marker' };
  for (let i = 0; i < 100; i++) {
    await a.send(message);
    await reader.next();
  }
  await a.close();
  // No own field of either end refers to the message, directly or in an array.
  for (const end of [a, b]) {
    for (const value of Object.values(end)) {
      expect(value === message || (Array.isArray(value) && value.includes(message))).toBe(false);
    }
    expect('sent' in end).toBe(false);
  }
});
