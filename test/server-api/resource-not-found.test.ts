/**
 * Issue 23 item 13: a resource template's reader says "no such resource" with
 * `resourceNotFound(uri)`, and the client gets what it gets for a URI nothing matches: `-32002`
 * with `data.uri` in 2025-11-25 and earlier, `-32602` with `data.uri` in 2026-07-28. It is the
 * client's mistake, so the server's `onerror` is not called; a reader that fails otherwise still is.
 */
import { afterEach, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { ErrorCode, McpError } from 'keel-mcp/core';
import { McpServer, resourceNotFound, type HandlerFailure } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const USERS = new Map([['ada', { name: 'Ada' }]]);
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function connect(era: 'legacy' | 'modern', reports: unknown[]): Promise<McpClient> {
  const server = new McpServer(
    { name: 'users', version: '1.0.0' },
    { onerror: (error: unknown, failure: HandlerFailure) => void reports.push({ error, failure }) },
  );
  server.resourceTemplate('user', 'users://{id}/profile', {}, (uri, { id }) => {
    if (id === 'boom') throw new Error('the user database is down');
    const user = USERS.get(String(id));
    if (!user) throw resourceNotFound(uri);
    return JSON.stringify(user);
  });
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = await within(
    McpClient.connect(clientSide, { info: { name: 'c', version: '1.0.0' }, era }),
    5_000,
    'connect',
  );
  close = async () => {
    await client.close();
    await within(session.closed, 5_000, 'session closed');
  };
  return client;
}

test.each([
  ['legacy', ErrorCode.ResourceNotFound],
  ['modern', ErrorCode.InvalidParams],
] as const)(
  "issue 23 item 13 (%s): the reader's resourceNotFound is the unknown-URI error, not an onerror report",
  async (era, code) => {
    const reports: unknown[] = [];
    const client = await connect(era, reports);
    expect(await client.readResource('users://ada/profile')).toMatchObject({
      contents: [{ text: '{"name":"Ada"}' }],
    });
    const fromReader = await client.readResource('users://bob/profile').catch((e: unknown) => e);
    const unmatched = await client.readResource('nothing://here').catch((e: unknown) => e);
    expect(fromReader).toBeInstanceOf(McpError);
    expect(fromReader).toMatchObject({
      code,
      message: 'Resource not found: users://bob/profile',
      data: { uri: 'users://bob/profile' },
    });
    expect(unmatched).toMatchObject({ code, data: { uri: 'nothing://here' } });
    expect(reports).toEqual([]);
    // Any other failure of the reader is reported, and is an internal error.
    await expect(client.readResource('users://boom/profile')).rejects.toMatchObject({
      code: ErrorCode.InternalError,
    });
    expect(reports).toHaveLength(1);
  },
);

test('resourceNotFound takes a message of its own', () => {
  const error = resourceNotFound('users://bob/profile', 'No user bob');
  expect(error.toJSON()).toEqual({
    code: -32002,
    message: 'No user bob',
    data: { uri: 'users://bob/profile' },
  });
});
