/**
 * Issue 23 item 12: local errors say which call and why. A call that a local `close()` ends names
 * its method, its tool and its request id, says that this side closed, and carries no `cause`
 * (nothing failed); a call before `connect` says what to do. Types are unchanged (guarantee 13).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { Client, McpClient } from 'keel-mcp/client';
import { ConnectionClosedError, NotConnectedError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const INFO = { name: 'c', version: '1' };
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup());
});

/** An McpClient connected (legacy era) to a server whose tool `slow` never answers. */
async function slowServer(): Promise<{
  client: McpClient;
  running: Promise<void>;
  transportClosed: () => Promise<void>;
}> {
  const server = new McpServer({ name: 's', version: '1' });
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  server.tool('slow', { description: 'never answers', input: { type: 'object' } }, () => {
    started();
    return new Promise<never>(() => undefined);
  });
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new McpClient(INFO, { era: 'legacy' });
  cleanups.push(async () => {
    await client.close();
    await session.closed;
  });
  await within(client.connect(clientSide));
  return { client, running, transportClosed: () => serverSide.close() };
}

function rejection(promise: Promise<unknown>): Promise<Error> {
  return within(promise).then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as Error,
  );
}

describe('issue 23 item 12: a call ended by a local close()', () => {
  test('names the method, the tool and the request id, says close() did it, and has no cause', async () => {
    const { client, running } = await slowServer();
    const call = rejection(client.callTool('slow', {}));
    await within(running);
    await within(client.close());
    const error = await call;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toMatch(
      /^tools\/call "slow" \(request \d+\) failed: the connection was closed locally by close\(\) before its response arrived$/,
    );
    expect('cause' in error).toBe(false);
  });

  test('a call made after close() says it was not sent, and why', async () => {
    const { client } = await slowServer();
    await within(client.close());
    const error = await rejection(client.callTool('slow', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toBe(
      'tools/call "slow" was not sent: the connection was closed locally by close()',
    );
  });

  test('closed by the peer instead: "Connection closed", with the transport\'s last error as cause when there is one', async () => {
    const { client, running, transportClosed } = await slowServer();
    const call = rejection(client.callTool('slow', {}));
    await within(running);
    await within(transportClosed());
    const error = await call;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toBe('Connection closed');
    expect(error.message).not.toContain('close()');
    // The memory transport ends without an error: no `cause` at all, rather than `cause: undefined`.
    expect('cause' in error).toBe(false);
  });

  test('unawaited, the crash it causes says which call and why (no "[cause]: undefined")', async () => {
    const script = fileURLToPath(new URL('./fixtures/unawaited-close.mjs', import.meta.url));
    expect(existsSync(fileURLToPath(new URL('../../dist/pkg/client.js', import.meta.url)))).toBe(true);
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const code = await within(
      new Promise<number | null>((resolve) => child.once('close', resolve)),
      15_000,
      'the child to end',
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /ConnectionClosedError: tools\/call "slow" \(request \d+\) failed: the connection was closed locally by close\(\)/,
    );
    expect(stderr).not.toContain('[cause]: undefined');
  });
});

describe('issue 23 item 12: a call before connect', () => {
  test('McpClient: NotConnectedError naming the call and saying to connect first', async () => {
    const client = new McpClient(INFO);
    const error = await rejection(client.callTool('add', { a: 1 }));
    expect(error).toBeInstanceOf(NotConnectedError);
    expect(error.message).toMatch(/^Cannot send tools\/call "add": the client is not connected\. /);
    expect(error.message).toContain('await client.connect(transport)');
    expect(error.message).toContain('McpClient.connect(transport)');
    expect((await rejection(client.listTools())).message).toMatch(/^Cannot send tools\/list: /);
  });

  test('Client (low level): request, notify and the connection getter say the same', async () => {
    const client = new Client(INFO);
    expect((await rejection(client.request('resources/list'))).message).toMatch(
      /^Cannot send resources\/list: the client is not connected/,
    );
    const notified = await rejection(client.notify('notifications/roots/list_changed'));
    expect(notified).toBeInstanceOf(NotConnectedError);
    expect(notified.message).toMatch(/^Cannot send notifications\/roots\/list_changed: /);
    expect(() => client.connection).toThrow(/^Cannot use client\.connection: the client is not connected/);
  });
});
