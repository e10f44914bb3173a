import { PassThrough, Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { serveStdio, StdioServerTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';

const guard = useProcessGuard();

/** Parsed lines written to `stream`, as they come. */
function outputOf(stream: PassThrough) {
  const messages: any[] = [];
  let partial = '';
  const waiters: { test: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  stream.setEncoding('utf8');
  stream.on('data', (text: string) => {
    const parts = (partial + text).split('\n');
    partial = parts.pop()!;
    for (const line of parts) {
      const message = JSON.parse(line);
      messages.push(message);
      for (const waiter of waiters.splice(0)) {
        if (waiter.test(message)) waiter.resolve(message);
        else waiters.push(waiter);
      }
    }
  });
  return {
    messages,
    next(test: (m: any) => boolean, what: string): Promise<any> {
      const seen = messages.find(test);
      if (seen) return Promise.resolve(seen);
      return within(new Promise((resolve) => waiters.push({ test, resolve })), 5_000, what);
    },
  };
}

function demoServer(): Server {
  const server = new Server({ name: 'demo', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', async (params, ctx) => {
    const ms = Number((params.arguments as any)?.ms ?? 0);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(ctx.signal.reason as Error);
      });
    });
    return { content: [{ type: 'text', text: `slept ${ms}` }] };
  });
  return server;
}

const call = (id: number, ms: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'sleep', arguments: { ms } } }) +
  '\n';

describe('serveStdio over injected streams', () => {
  test('answers requests and faults, and settles on EOF', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = outputOf(stdout);
    const served = serveStdio(demoServer(), { stdin, stdout });
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n\n');
    stdin.write('not json\n');
    stdin.write(Buffer.from([0xc3, 0x28, 0x0a]));
    stdin.write('{"jsonrpc":"2.0","id":2,');
    stdin.write('"method":"ping"}\n');
    expect(await out.next((m) => m.id === 2, 'ping 2')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(out.messages.filter((m) => m.id === null).map((m) => m.error.code)).toEqual([-32700, -32700]);
    stdin.end();
    await within(served, 5_000, 'serveStdio');
    expect(stdin.isPaused()).toBe(true);
  });

  test('default EOF policy: unfinished requests are aborted and nothing more is written', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = outputOf(stdout);
    const served = serveStdio(demoServer(), { stdin, stdout });
    stdin.end(call(1, 10_000) + call(2, 10_000) + '{"jsonrpc":"2.0","id":"p","method":"ping"}\n');
    await within(served, 5_000, 'serveStdio');
    // The ping proves the calls were read and started before EOF; they get no answer after it.
    expect(out.messages.map((m) => m.id)).toEqual(['p']);
  });

  test('answerOnClose: each unfinished request gets exactly one -32000 after EOF', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = outputOf(stdout);
    const served = serveStdio(demoServer(), { stdin, stdout, answerOnClose: true });
    stdin.end(call(1, 10_000) + call(2, 10_000));
    await within(served, 5_000, 'serveStdio');
    expect(out.messages.map((m) => [m.id, m.error?.code])).toEqual([
      [1, -32000],
      [2, -32000],
    ]);
  });

  test('drainMs lets accepted handlers finish and answer normally', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = outputOf(stdout);
    const served = serveStdio(demoServer(), { stdin, stdout, drainMs: 5_000 });
    stdin.end(call(1, 20) + call(2, 30));
    await within(served, 5_000, 'serveStdio');
    expect(out.messages.map((m) => [m.id, m.result?.content[0].text])).toEqual([
      [1, 'slept 20'],
      [2, 'slept 30'],
    ]);
  });

  test('aborting the signal closes the connection without waiting for stdin', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out = outputOf(stdout);
    const controller = new AbortController();
    const served = serveStdio(demoServer(), { stdin, stdout, drainMs: 60_000, signal: controller.signal });
    stdin.write(call(1, 60_000));
    stdin.write('{"jsonrpc":"2.0","id":"p","method":"ping"}\n');
    await out.next((m) => m.id === 'p', 'ping');
    controller.abort();
    await within(served, 5_000, 'serveStdio after abort');
    expect(out.messages.filter((m) => m.id === 1)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Connection closed' } },
    ]);
    expect(stdin.isPaused()).toBe(true);
  });
});

describe('StdioServerTransport', () => {
  test('respects backpressure, and close() settles a send waiting for drain', async () => {
    const held: (() => void)[] = [];
    const stdout = new Writable({
      highWaterMark: 8,
      write(_chunk, _encoding, callback) {
        held.push(callback);
      },
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    const first = transport.send({ jsonrpc: '2.0', method: 'a' });
    let settled = false;
    void first.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    // Drain: the waiting send resolves.
    held.shift()!();
    await within(first, 5_000, 'send after drain');
    // Block again, then close instead of draining.
    const second = transport.send({ jsonrpc: '2.0', method: 'b' });
    await transport.close();
    await within(second, 5_000, 'send settled by close');
    await expect(transport.send({ jsonrpc: '2.0', method: 'c' })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
    await transport.close();
    expect(transport.writable).toBe(false);
  });

  test('EPIPE on stdout: not writable, lastError recorded, nothing thrown or unhandled', async () => {
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    const stdout = new Writable({
      write(_chunk, _encoding, callback) {
        callback(epipe);
      },
    });
    const stdin = new PassThrough();
    const transport = new StdioServerTransport({ stdin, stdout });
    const closed = new Promise((resolve) => stdout.once('close', resolve));
    await transport.send({ jsonrpc: '2.0', method: 'a' }).catch(() => undefined);
    await within(closed, 5_000, 'stdout destroyed after the error');
    expect(transport.writable).toBe(false);
    expect(transport.lastError).toBe(epipe);
    const late = await transport.send({ jsonrpc: '2.0', method: 'b' }).catch((error: unknown) => error);
    expect(late).toBeInstanceOf(ConnectionClosedError);
    expect((late as Error).cause).toBe(epipe);
    // The read side still ends the iteration normally.
    const iterator = transport[Symbol.asyncIterator]();
    stdin.end();
    expect(await within(iterator.next(), 5_000, 'EOF')).toEqual({ value: undefined, done: true });
    await transport.close();
    expect(guard.uncaught).toEqual([]);
  });

  test('serveStdio settles on EOF even when stdout is already closed', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.destroy();
    const served = serveStdio(demoServer(), { stdin, stdout });
    stdin.end(call(1, 60_000) + '{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await within(served, 5_000, 'serveStdio');
  });

  test('close() stops reading: later input is not delivered', async () => {
    const stdin = new PassThrough();
    const transport = new StdioServerTransport({ stdin, stdout: new PassThrough() });
    const iterator = transport[Symbol.asyncIterator]();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect(await within(iterator.next(), 5_000, 'first message')).toMatchObject({ done: false });
    const pending = iterator.next();
    await transport.close();
    expect(await within(pending, 5_000, 'next() after close')).toEqual({ value: undefined, done: true });
    stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(stdin.listenerCount('data')).toBe(0);
  });
});
