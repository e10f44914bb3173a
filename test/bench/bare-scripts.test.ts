/**
 * The bare scripts stay a floor for Keel: they must not pay for a write that Keel saves. Over stdio
 * the answers to one chunk of input leave in one write (Keel's writer batches a tick), over HTTP a
 * JSON answer carries Content-Length and no chunked framing (Keel's `node:http` path).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import { INITIALIZE, postJson } from './http-post.js';

const bare = (name: string): string => fileURLToPath(new URL(`../../bench/bare/${name}`, import.meta.url));
const countWrites = pathToFileURL(
  fileURLToPath(new URL('./fixtures/count-writes.mjs', import.meta.url)),
).href;

function echo(id: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"t${id}"}}}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('bare bench scripts', () => {
  useProcessGuard();
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await within(exited, 5_000, 'child exit');
      }
    }
  });

  it('stdio: answers the lines of one input chunk with one write', async () => {
    const child = spawn(process.execPath, ['--import', countWrites, bare('stdio.mjs')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = once(child, 'exit');
    // One write well under PIPE_BUF (4 KiB): the pipe delivers it whole, as one chunk.
    child.stdin.end([1, 2, 3, 4].map(echo).join('\n') + '\n');
    await within(exited, 10_000, 'bare stdio exit');

    const answers = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { content: { text: string }[] } });
    expect(answers.map((answer) => [answer.id, answer.result.content[0]!.text])).toEqual([
      [1, 't1'],
      [2, 't2'],
      [3, 't3'],
      [4, 't4'],
    ]);
    expect(stderr).toContain('stdout writes: 1\n');
  });

  it('HTTP: a JSON answer has Content-Length and no chunked framing', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [bare('http-stateless.mjs')], {
      stdio: 'ignore',
      env: { ...process.env, PORT: String(port) },
    });
    children.push(child);
    const deadline = Date.now() + 10_000;
    while (!(await canConnect(port))) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error('bare HTTP server did not listen');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    const answer = await within(postJson(port, INITIALIZE));
    expect(answer.status).toBe(200);
    expect(answer.headers['transfer-encoding']).toBeUndefined();
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.text)));
    expect(JSON.parse(answer.text)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await within(exited, 5_000, 'bare HTTP exit');
  });
});
