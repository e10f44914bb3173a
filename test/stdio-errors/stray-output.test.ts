/**
 * Issue 23 item 10: a stdio server that writes other things than JSON-RPC on stdout (`console.log`
 * text, a stray object) is tolerated, and reported once per connection: a `protocolError` event
 * (`onprotocolerror` on the low-level client) and one `error` on the connection logger, with an
 * escaped excerpt of the first bad line. The rest go to the debug log.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { Client, McpClient, ProtocolViolationError } from 'keel-mcp/client';
import { excerpt } from '../../src/client/invalid-messages.js';
import type { Logger } from 'keel-mcp/core';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { CHILD_TEST_TIMEOUT_MS, WAIT_MS } from '../stdio/helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();

const SCRIPT = fileURLToPath(new URL('./fixtures/noisy-server.mjs', import.meta.url));
const INFO = { name: 'stdio-errors', version: '1.0.0' };
const FIRST_LINE = '"Server starting on stdio…"';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => within(close(), WAIT_MS, 'close')));
});

function noisy(): StdioClientTransport {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SCRIPT], stderr: 'ignore' });
  closers.push(() => transport.close());
  return transport;
}

/** A logger that keeps what it was told. */
function recordingLogger(): Logger & { errors: [string, unknown][]; debugs: string[] } {
  const errors: [string, unknown][] = [];
  const debugs: string[] = [];
  return {
    errors,
    debugs,
    error: (message, detail) => void errors.push([message, detail]),
    debug: (message) => void debugs.push(message),
  };
}

describe('issue 23 item 10: output on stdout that is not JSON-RPC', () => {
  test('McpClient: the calls work; one protocolError event and one logged error, naming the first bad line', async () => {
    const logger = recordingLogger();
    const client = new McpClient(INFO, { connection: { logger } });
    closers.push(() => client.close());
    const reports: ProtocolViolationError[] = [];
    client.on('protocolError', (error) => void reports.push(error));

    await within(client.connect(noisy()), WAIT_MS, 'connect');
    // Two calls, each answered after a stray object and a console.log line.
    for (let i = 0; i < 2; i++) {
      const { tools } = await within(client.listTools(), WAIT_MS, 'tools/list');
      expect(tools.map((tool) => tool.name)).toEqual(['echo']);
    }

    expect(reports).toHaveLength(1);
    const [report] = reports;
    expect(report).toBeInstanceOf(ProtocolViolationError);
    expect(report!.message).toContain(`not a JSON-RPC message (ignored): ${FIRST_LINE}`);
    expect(report!.message).toContain('Reported once per connection');
    const logged = logger.errors.filter(([message]) => message.includes('not a JSON-RPC message'));
    expect(logged).toEqual([[report!.message, report]]);
    // The rest (a stray object and a text line per call) went to the debug log.
    expect(logger.debugs.filter((m) => m.includes('not a JSON-RPC message'))).toHaveLength(4);
  });

  test('Client (low level): onprotocolerror once, with the excerpt escaped', async () => {
    const client = new Client(INFO);
    closers.push(() => client.close());
    const reports: ProtocolViolationError[] = [];
    client.onprotocolerror = (error) => reports.push(error);
    await within(client.connect(noisy()), WAIT_MS, 'connect');
    await within(client.request('tools/list', {}), WAIT_MS, 'tools/list');
    expect(reports).toHaveLength(1);
    expect(reports[0]!.message).toContain(FIRST_LINE);
  });

  test('a listener that throws does not break the connection', async () => {
    const client = new McpClient(INFO);
    closers.push(() => client.close());
    const failures: unknown[] = [];
    client.on('error', ({ error, event }) => void failures.push([event, error]));
    client.on('protocolError', () => {
      throw new Error('listener bug');
    });
    await within(client.connect(noisy()), WAIT_MS, 'connect');
    expect((await within(client.listTools(), WAIT_MS, 'tools/list')).tools).toHaveLength(1);
    expect(failures).toEqual([['protocolError', new Error('listener bug')]]);
  });

  test('the excerpt is escaped (one printable line) and cut', () => {
    expect(excerpt('say "hi"\t\u001b[31mred\n')).toBe('"say \\"hi\\"\\t\\u001b[31mred\\n"');
    expect(excerpt('x'.repeat(200))).toBe(`"${'x'.repeat(80)}"...`);
  });
});
