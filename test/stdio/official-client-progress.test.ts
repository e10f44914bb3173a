/**
 * Issue 23 item 2: the official SDK clients (`@modelcontextprotocol/sdk` 1.x and the v2
 * `@modelcontextprotocol/client`) get every progress notification of a call over stdio.
 *
 * Those clients run notification handlers a microtask after reading them but handle a response at
 * once, dropping the call's progress callback: a progress notification read in one chunk with its
 * call's answer is lost. Keel writes the answer the spacing (`progressSpacingMs`, 10 ms) after the
 * progress, so the client reads them apart unless it did not read at all meanwhile (a process not
 * scheduled for that long, on a loaded machine). The test tells the two apart: every progress
 * notification is stamped with the time it was sent, and one the client missed must have been read
 * at least the spacing after it was sent; a miss read sooner means the answer was written too early.
 * Before the fix (or with `KEEL_PROGRESS_SPACING_MS=0`) most of the 50 calls of each client miss
 * the last progress that way.
 */
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, expect, test, vi } from 'vitest';
import { DEFAULT_PROGRESS_SPACING_MS } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { assertBuilt, CHILD_TEST_TIMEOUT_MS, fixture, WAIT_MS } from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
beforeAll(assertBuilt);

const CALLS = 50;
/** Clock difference allowed between the two processes' `performance.timeOrigin`. */
const CLOCK_SLACK_MS = 2;

interface ProgressStamp {
  call: number;
  sentAt: number;
}
type Message = { method?: string; params?: { progress?: number; message?: string } };
/** The part of both official transports this test uses (public API). */
interface ObservedTransport {
  onmessage?: ((message: any, extra?: any) => void) | undefined;
}

/**
 * Watch what the client reads: for each progress notification, how long after it was sent the
 * client handled it (a chunk's messages are handled synchronously, one after the other).
 */
function watchReads(transport: ObservedTransport): Map<string, number> {
  const delays = new Map<string, number>();
  const inner = transport.onmessage;
  transport.onmessage = (message: Message, extra?: unknown) => {
    if (message.method === 'notifications/progress' && message.params?.message) {
      const stamp = JSON.parse(message.params.message) as ProgressStamp;
      const now = performance.timeOrigin + performance.now();
      delays.set(`${stamp.call}:${String(message.params.progress)}`, now - stamp.sentAt);
    }
    inner?.(message, extra);
  };
  return delays;
}

interface OfficialClient {
  connect(transport: never): Promise<void>;
  close(): Promise<void>;
}

/** Run CALLS progress calls; return the progress notifications the client missed and how late it read them. */
async function callWithProgress(
  client: OfficialClient,
  transport: ObservedTransport,
  call: (n: number, onprogress: (p: { progress: number }) => void) => Promise<unknown>,
): Promise<{ missed: { call: number; progress: number; readAfterMs: number | undefined }[] }> {
  await within(client.connect(transport as never), WAIT_MS, 'connect');
  const delays = watchReads(transport);
  const missed: { call: number; progress: number; readAfterMs: number | undefined }[] = [];
  for (let n = 0; n < CALLS; n++) {
    const seen: number[] = [];
    await within(
      call(n, (p) => seen.push(p.progress)),
      WAIT_MS,
      `call ${n}`,
    );
    for (const progress of [0, 50, 100]) {
      if (!seen.includes(progress))
        missed.push({ call: n, progress, readAfterMs: delays.get(`${n}:${progress}`) });
    }
  }
  await within(client.close(), WAIT_MS, 'close');
  return { missed };
}

/** Misses the server is to blame for: the client read the progress before the answer could come. */
function writtenTooEarly(missed: { readAfterMs: number | undefined }[]) {
  return missed.filter(
    (miss) =>
      miss.readAfterMs === undefined || miss.readAfterMs < DEFAULT_PROGRESS_SPACING_MS - CLOCK_SLACK_MS,
  );
}

const serverArgs = [fixture('tool-server.js')];
// The official transports pass only a safe subset of the environment on by default.
const env = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

test('issue 23 item 2: the official 1.x client gets every progress notification of 50 stdio calls', async () => {
  const transport = new StdioClientTransportV1({
    command: process.execPath,
    args: serverArgs,
    env: env(),
    stderr: 'ignore',
  });
  const client = new ClientV1({ name: 'official-1.x', version: '1.0.0' });
  const { missed } = await callWithProgress(client, transport, (n, onprogress) =>
    client.callTool({ name: 'progress', arguments: { call: n } }, undefined, { onprogress }),
  );
  expect(writtenTooEarly(missed)).toEqual([]);
});

test('issue 23 item 2: the official v2 client gets every progress notification of 50 stdio calls', async () => {
  const transport = new StdioClientTransportV2({
    command: process.execPath,
    args: serverArgs,
    env: env(),
    stderr: 'ignore',
  });
  const client = new ClientV2({ name: 'official-v2', version: '1.0.0' });
  const { missed } = await callWithProgress(client, transport, (n, onprogress) =>
    client.callTool({ name: 'progress', arguments: { call: n } }, { onprogress }),
  );
  expect(writtenTooEarly(missed)).toEqual([]);
});
