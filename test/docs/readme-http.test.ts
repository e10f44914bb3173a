/**
 * The README's server over HTTP (examples/hello-http-server.ts), run as a user would: the compiled
 * file listens, prints its endpoint, a client connected as the README says calls the tool in both
 * eras, and Ctrl+C (SIGINT) shuts it down with exit status 0.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { ROOT } from './readme-blocks.mjs';

useProcessGuard();

const SERVER = join(ROOT, 'dist', 'examples', 'hello-http-server.js');

test('the README HTTP server answers a client in both eras and exits 0 on Ctrl+C', async () => {
  if (!existsSync(SERVER)) {
    throw new Error(
      'dist/examples/hello-http-server.js is missing: run `npm run build` first (npm test does)',
    );
  }
  const child = spawn(process.execPath, [SERVER], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' }, // the README's 3000, made free for parallel tests
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  try {
    const listening = new Promise<string>((resolve, reject) => {
      const check = () => {
        const url = /^MCP endpoint: (\S+)$/m.exec(stdout)?.[1];
        if (url) resolve(url);
      };
      child.stdout.on('data', check);
      void exited.then(() => reject(new Error(`the server exited first: ${stderr}`)));
    });
    const url = await within(listening, 15_000, 'the endpoint line');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    for (const era of ['legacy', 'modern'] as const) {
      const client = await within(
        McpClient.connect(new StreamableHttpClientTransport(url), {
          info: { name: 'hello-client', version: '1.0.0' },
          era,
        }),
        10_000,
        `connect (${era})`,
      );
      try {
        const result = await within(client.callTool('greet', { name: 'Ada' }), 10_000, 'greet');
        expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      } finally {
        await client.close();
      }
    }

    child.kill('SIGINT');
    const { code, signal } = await within(exited, 10_000, 'exit after SIGINT');
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(stderr).toBe('');
  } finally {
    child.kill('SIGKILL'); // a no-op once it has exited
  }
}, 40_000);
