/**
 * What the end-to-end telemetry tests share: a local OTLP/HTTP receiver (node:http on 127.0.0.1),
 * the compiled fixture HTTP server spawned with an environment, and a client that sends a
 * made-up remote parent as `traceparent` in `_meta`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'keel-mcp/client';
import type { JsonObject } from 'keel-mcp/core';
import { within } from '../helpers/guard.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const fixture = (name: string): string => {
  const path = join(ROOT, 'dist', 'examples', name);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  return path;
};

export interface Receiver {
  readonly endpoint: string;
  /** Resolves with the first body posted to `path` for which `accept` holds. */
  received(path: string, accept: (body: Buffer) => boolean): Promise<Buffer>;
  /** Every body posted to `path` so far. */
  bodies(path: string): Buffer[];
  close(): Promise<void>;
}

export async function otlpReceiver(): Promise<Receiver> {
  const bodies: { path: string; body: Buffer }[] = [];
  const waiters = new Set<() => void>();
  const server: HttpServer = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({ path: request.url ?? '', body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/json' });
      response.end(request.headers['content-type']?.includes('json') ? '{}' : undefined);
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    received(path, accept) {
      return new Promise((resolve) => {
        const check = (): void => {
          const found = bodies.find((entry) => entry.path === path && accept(entry.body));
          if (found) {
            waiters.delete(check);
            resolve(found.body);
          }
        };
        waiters.add(check);
        check();
      });
    },
    bodies: (path) => bodies.filter((entry) => entry.path === path).map((entry) => entry.body),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A client that sends `traceparent` (a remote parent the test made up) in every request's `_meta`. */
export function tracingClient(traceId: string, parentId: string): Client {
  return new Client({ name: 'e2e', version: '1' }).use((call, next) =>
    next({
      ...call.params,
      _meta: {
        ...(call.params?._meta as JsonObject | undefined),
        traceparent: `00-${traceId}-${parentId}-01`,
      },
    }),
  );
}

export interface OtlpJsonSpan {
  name: string;
  kind: number;
  traceId: string;
  parentSpanId?: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

export function jsonSpans(body: Buffer): OtlpJsonSpan[] {
  const parsed = JSON.parse(body.toString('utf8')) as {
    resourceSpans: { scopeSpans: { spans: OtlpJsonSpan[] }[] }[];
  };
  return parsed.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

export interface FixtureProcess {
  readonly url: string;
  /** SIGTERM, then the exit code (bounded). */
  stop(): Promise<number | null>;
  /** SIGKILL if still running; resolves once it exited. */
  kill(): Promise<void>;
}

/** Spawn dist/examples/fixture-http.js on a free port with `env` (PATH added); resolves once it listens. */
export async function spawnFixtureHttp(env: Record<string, string>): Promise<FixtureProcess> {
  const child = spawn(process.execPath, [fixture('fixture-http.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  try {
    const url = await within(
      new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (text: string) => {
          out += text;
          const line = /^(http:\/\/\S+)$/m.exec(out);
          if (line) resolve(line[1]!);
        });
        void exited.then((code) => reject(new Error(`fixture-http exited ${code}: ${stderr}`)));
      }),
      10_000,
      'fixture-http start',
    );
    return {
      url,
      stop: () => {
        child.kill('SIGTERM');
        return within(exited, 10_000, 'fixture exit');
      },
      kill,
    };
  } catch (error) {
    await kill();
    throw error;
  }
}
