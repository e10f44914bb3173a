/**
 * The fixture over stdio, closed while a tool waits on the user: the McpServer inherits the
 * engine's close contract (handler aborted, pending elicitation failed, clean exit 0).
 * Needs `npm run build`.
 */
import { existsSync } from 'node:fs';
import { expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { ConnectionClosedError } from 'keel-mcp/core';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';

const FIXTURE = 'dist/examples/fixture-stdio.js';
useProcessGuard();

test('closing the client mid-elicitation ends the fixture cleanly (exit 0, call rejected once)', async () => {
  if (!existsSync(FIXTURE)) throw new Error(`${FIXTURE} is missing: run \`npm run build\` first`);
  const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'pipe' });
  const client = new Client({ name: 'lifecycle', version: '1' }, { capabilities: { elicitation: {} } });
  let asked!: () => void;
  const elicitationArrived = new Promise<void>((resolve) => (asked = resolve));
  client.setRequestHandler('elicitation/create', () => {
    asked();
    return new Promise(() => undefined); // the user never answers
  });
  await within(client.connect(transport), 10_000, 'connect');
  const call = client.request('tools/call', { name: 'test_elicitation', arguments: { message: 'Hi?' } });
  const outcome = call.then(
    () => 'resolved',
    (error: unknown) => error,
  );
  await within(elicitationArrived, 10_000, 'elicitation request');
  await within(client.close(), 10_000, 'client.close');
  expect(await within(outcome, 5_000, 'call settles')).toBeInstanceOf(ConnectionClosedError);
  expect(transport.exitCode).toBe(0);
});
