/**
 * A server-side transport wrapper that makes a Keel server look like a 2025-11-25-only server to
 * its client: `server/discover` (the 2026-07-28 probe) is answered `-32601 Method not found`, as
 * a legacy server answers an unknown method, and never reaches the server. Everything else passes.
 */
import type { JsonRpcMessage, Transport } from 'keel-mcp/core';

function isDiscover(message: unknown): message is { id: string | number } {
  const m = message as { method?: unknown; id?: unknown } | null;
  return typeof m === 'object' && m !== null && m.method === 'server/discover' && m.id !== undefined;
}

export function legacyOnly(inner: Transport, code = -32601): Transport {
  return {
    get writable() {
      return inner.writable;
    },
    get lastError() {
      return inner.lastError;
    },
    send: (message: JsonRpcMessage, options) => inner.send(message, options),
    close: () => inner.close(),
    [Symbol.asyncIterator]() {
      const iterator = inner[Symbol.asyncIterator]();
      return {
        next: async () => {
          for (;;) {
            const next = await iterator.next();
            if (next.done || !isDiscover(next.value)) return next;
            void inner.send({
              jsonrpc: '2.0',
              id: next.value.id,
              error: { code, message: 'Method not found' },
            });
          }
        },
        return: async () => (await iterator.return?.()) ?? { done: true as const, value: undefined },
      };
    },
  };
}
