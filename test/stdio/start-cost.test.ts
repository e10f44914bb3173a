/**
 * Issue 14 (spawn → initialize): what a stdio server defers until first use must stay deferred.
 * A server with no request-state keys draws its random key on first use, so Node's WebCrypto
 * internals are not loaded before the initialize answer; simple raw schemas are still validated
 * (valid arguments pass, invalid ones get the library's message).
 */
import { describe, expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import { assertBuilt, CHILD_TEST_TIMEOUT_MS, fixture, RawServer } from './helpers.js';

useProcessGuard();

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

function probed(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith('[start-probe] '));
  if (!line) throw new Error(`no start-probe line in stderr: ${stderr}`);
  return (JSON.parse(line.slice('[start-probe] '.length)) as { loaded: string[] }).loaded;
}

describe('stdio server start-up', () => {
  test(
    'nothing crypto is loaded before the initialize answer; the first calls still validate',
    async () => {
      assertBuilt();
      const server = new RawServer(fixture('simple-tool-server.js'));
      server.send(initialize);
      expect((await server.response(1)).result.serverInfo.name).toBe('simple-tool-server');
      const loaded = probed(server.stderr);
      // The probe itself works: stdin/stdout streams were loaded to answer at all.
      expect(loaded.some((name) => name.includes('streams'))).toBe(true);
      expect(loaded.filter((name) => name.includes('crypto'))).toEqual([]);

      server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      server.send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'hi' } },
      });
      expect((await server.response(2)).result).toEqual({ content: [{ type: 'text', text: 'hi' }] });
      server.send({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 1 } },
      });
      const invalid = await server.response(3);
      // Invalid arguments are a tool error result (what tools.test.ts pins), with the library's text.
      expect(invalid.result).toEqual({
        content: [
          {
            type: 'text',
            text: 'Invalid arguments for tool "echo": /text: Instance type "number" is invalid. Expected "string".',
          },
        ],
        isError: true,
      });
      server.endInput();
      expect((await server.exited).code).toBe(0);
    },
    CHILD_TEST_TIMEOUT_MS,
  );
});
