/**
 * Issue 9 item 17: handler failures reach the server's `onerror` locally, with the method, the
 * request id and what failed, besides the answer the peer gets. A throwing hook is contained.
 * The default writes one line to stderr (no stack: issue 23 item 15), never stdout.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ErrorCode, McpError, type JsonObject, type RequestId } from 'keel-mcp/core';
import { logHandlerFailureWithStack, type HandlerFailure, McpServer, toolError } from 'keel-mcp/server';
import {
  assertBuilt,
  invalidStdout,
  RawServer,
  useChildCleanup,
  endAndExpectCleanExit,
} from '../stdio/helpers.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
useChildCleanup();
let open: Connected | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await open?.close();
  open = undefined;
});

type Report = { error: unknown; failure: HandlerFailure };

/** A server with one failing thing of each kind; every report lands in `reports`. */
function failingServer(reports: Report[]): McpServer {
  const server = new McpServer(
    { name: 's', version: '1' },
    { onerror: (error, failure) => void reports.push({ error, failure }) },
  );
  server.tool('sync', { description: 'Throws' }, () => {
    throw new Error('sync tool failed');
  });
  server.tool('async', { description: 'Rejects' }, async () => {
    await Promise.resolve();
    throw new Error('async tool failed');
  });
  server.resource('bad', 'test://bad', {}, () => {
    throw new Error('reader failed');
  });
  server.prompt('bad', { description: 'Fails' }, () => Promise.reject(new Error('prompt failed')));
  server.server.setRequestHandler('custom/sync', () => {
    throw new McpError(ErrorCode.InvalidParams, 'custom refused');
  });
  server.server.setRequestHandler('custom/async', () => Promise.reject(new Error('custom failed')));
  server.server.setNotificationHandler('notifications/custom', () => {
    throw new Error('notification failed');
  });
  return server;
}

/** The id of the last response the server wrote. */
function lastResponseId(c: Connected): RequestId {
  const response = c.routes.filter((r) => 'result' in r.message || 'error' in r.message).at(-1)!;
  return (response.message as { id: RequestId }).id;
}

const text = (result: JsonObject) => (result.content as { text: string }[])[0]!.text;

describe('onerror', () => {
  test('tools, readers, prompts and low-level handlers report once each, with method, id and target', async () => {
    const reports: Report[] = [];
    open = await connect(failingServer(reports));
    const c = open;
    const sessionId = c.session.id;

    const sync = await c.client.request('tools/call', { name: 'sync' });
    expect(sync).toMatchObject({ isError: true });
    expect(text(sync)).toBe('sync tool failed');
    expect(reports).toHaveLength(1);
    expect(reports[0]!.failure).toEqual({
      method: 'tools/call',
      requestId: lastResponseId(c),
      sessionId,
      target: 'sync',
    });
    expect((reports[0]!.error as Error).message).toBe('sync tool failed');

    await c.client.request('tools/call', { name: 'async' });
    expect(reports).toHaveLength(2);
    expect(reports[1]!.failure).toMatchObject({
      method: 'tools/call',
      target: 'async',
      requestId: lastResponseId(c),
    });

    await expect(c.client.request('resources/read', { uri: 'test://bad' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: 'reader failed',
    });
    expect(reports[2]!.failure).toEqual({
      method: 'resources/read',
      requestId: lastResponseId(c),
      sessionId,
      target: 'test://bad',
    });

    await expect(c.client.request('prompts/get', { name: 'bad' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
    });
    expect(reports[3]!.failure).toMatchObject({ method: 'prompts/get', target: 'bad' });

    await expect(c.client.request('custom/sync', {})).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect(reports[4]!.failure).toEqual({ method: 'custom/sync', requestId: lastResponseId(c), sessionId });
    expect(reports[4]!.error).toBeInstanceOf(McpError);

    await expect(c.client.request('custom/async', {})).rejects.toMatchObject({
      code: ErrorCode.InternalError,
    });
    expect(reports[5]!.failure).toEqual({ method: 'custom/async', requestId: lastResponseId(c), sessionId });

    await c.client.notify('notifications/custom', {});
    await within(c.client.request('ping', {}), 5_000, 'ping');
    expect(reports).toHaveLength(7);
    expect(reports[6]!.failure).toEqual({ method: 'notifications/custom', requestId: undefined, sessionId });
  });

  test("a client's bad request is not a handler failure", async () => {
    const reports: Report[] = [];
    const server = failingServer(reports);
    server.tool('typed', { description: 'Typed', input: { type: 'object', required: ['n'] } }, () => 'ok');
    open = await connect(server);
    await expect(open.client.request('tools/call', { name: 'nope' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    expect(await open.client.request('tools/call', { name: 'typed', arguments: {} })).toMatchObject({
      isError: true,
    });
    await expect(open.client.request('resources/read', { uri: 'test://nope' })).rejects.toMatchObject({
      code: ErrorCode.ResourceNotFound,
    });
    await expect(open.client.request('prompts/get', { name: 'nope' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
    await expect(open.client.request('nope/nope', {})).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
    expect(reports).toEqual([]);
  });

  test('a hook that throws or rejects is contained: the answer still goes out', async () => {
    const server = failingServer([]);
    let calls = 0;
    server.onerror = () => {
      calls++;
      throw new Error('hook broke');
    };
    open = await connect(server);
    expect(text(await open.client.request('tools/call', { name: 'sync' }))).toBe('sync tool failed');
    await expect(open.client.request('custom/async', {})).rejects.toMatchObject({ message: 'custom failed' });
    server.onerror = async () => {
      calls++;
      await Promise.resolve();
      throw new Error('async hook broke');
    };
    expect(text(await open.client.request('tools/call', { name: 'async' }))).toBe('async tool failed');
    expect(calls).toBe(3);
    // useProcessGuard fails the test on any unhandled rejection or uncaught exception.
  });

  test('a failure after the request was cancelled is not reported', async () => {
    const reports: Report[] = [];
    const server = failingServer(reports);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    server.tool('wait', { description: 'Waits to be cancelled' }, async (_a, ctx) => {
      try {
        started();
        return await new Promise<string>((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped'))),
        );
      } finally {
        finished();
      }
    });
    open = await connect(server);
    const controller = new AbortController();
    const call = open.client.request('tools/call', { name: 'wait' }, { signal: controller.signal });
    await within(running, 5_000, 'handler started');
    controller.abort();
    await expect(call).rejects.toThrow();
    await within(done, 5_000, 'handler finished');
    await within(open.client.request('ping', {}), 5_000, 'ping');
    expect(reports).toEqual([]);
  });

  test('issue 23 item 15: the default writes one line to stderr (console.error), no stack, never stdout; undefined silences it', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const stdout = vi.spyOn(process.stdout, 'write');
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('boom', { description: 'Fails' }, () => {
      throw new Error('kaboom');
    });
    open = await connect(server);
    await open.client.request('tools/call', { name: 'boom' });
    expect(stderr.mock.calls).toEqual([
      [
        `[keel] tools/call "boom" failed (request ${String(lastResponseId(open))}, session ${open.session.id}): Error: kaboom`,
      ],
    ]);
    expect(stdout).not.toHaveBeenCalled();

    server.onerror = undefined;
    await open.client.request('tools/call', { name: 'boom' });
    expect(stderr).toHaveBeenCalledTimes(1);
    const silent = new McpServer({ name: 's', version: '1' }, { onerror: undefined });
    expect(silent.onerror).toBeUndefined();
  });

  test('issue 23 item 15: a tool error the handler meant (toolError) is not reported', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('meant', { description: 'Refuses' }, () => toolError('No such city'));
    open = await connect(server);
    expect(await open.client.request('tools/call', { name: 'meant' })).toEqual({
      content: [{ type: 'text', text: 'No such city' }],
      isError: true,
    });
    expect(stderr).not.toHaveBeenCalled();
  });

  test('the default line: a JSON-RPC error names its code, a multi-line message stays on one line, a non-Error is shown as JSON', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = new McpServer({ name: 's', version: '1' });
    server.server.setRequestHandler('custom/refuse', () => {
      throw new McpError(ErrorCode.InvalidParams, 'custom refused');
    });
    server.tool('lines', { description: 'Multi-line message' }, () => {
      throw new TypeError('first line\n  second line');
    });
    server.tool('thrown-object', { description: 'Throws a plain object' }, () => {
      throw { reason: 'nope' }; // eslint-disable-line @typescript-eslint/only-throw-error
    });
    open = await connect(server);
    await expect(open.client.request('custom/refuse', {})).rejects.toMatchObject({ code: -32602 });
    await open.client.request('tools/call', { name: 'lines' });
    await open.client.request('tools/call', { name: 'thrown-object' });
    const lines = stderr.mock.calls.map((args) => {
      expect(args).toHaveLength(1);
      return (args[0] as string).replace(/ \(request .*?\): /, ': ');
    });
    expect(lines).toEqual([
      '[keel] custom/refuse failed: McpError -32602: custom refused',
      '[keel] tools/call "lines" failed: TypeError: first line second line',
      '[keel] tools/call "thrown-object" failed: {"reason":"nope"}',
    ]);
  });

  test('logHandlerFailureWithStack adds the error itself (its stack) after the same line', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = new McpServer({ name: 's', version: '1' }, { onerror: logHandlerFailureWithStack });
    const thrown = new Error('kaboom');
    server.tool('boom', { description: 'Fails' }, () => {
      throw thrown;
    });
    open = await connect(server);
    await open.client.request('tools/call', { name: 'boom' });
    expect(stderr.mock.calls).toEqual([
      [
        `[keel] tools/call "boom" failed (request ${String(lastResponseId(open))}, session ${open.session.id}):`,
        thrown,
      ],
    ]);
  });

  test('over stdio the default report goes to stderr and stdout stays protocol-only', async () => {
    assertBuilt();
    const server = new RawServer('test/server-api/fixtures/session-server.js');
    server.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await server.response(0);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 'm', method: 'tools/call', params: { name: 'meant' } });
    expect((await server.response('m')).result).toEqual({
      content: [{ type: 'text', text: 'No such city' }],
      isError: true,
    });
    server.send({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'boom' } });
    expect((await server.response('b')).result).toEqual({
      content: [{ type: 'text', text: 'kaboom' }],
      isError: true,
    });
    await endAndExpectCleanExit(server);
    // One line, no stack trace (issue 23 item 15), and nothing for the tool error it meant.
    expect(server.stderr).toMatch(
      /^\[keel\] tools\/call "boom" failed \(request b, session [0-9a-f-]{36}\): Error: kaboom\n$/,
    );
    expect(invalidStdout(server)).toEqual([]);
    expect(server.messages.map((m) => m.id)).toEqual([0, 'm', 'b']);
  });
});
