// The HTTP fixture server under test: free port, start, wait until it answers MCP, stop.
import { createServer } from 'node:net';
import { spawnTracked, stopChild } from './children.mjs';
import { lastLines } from './report.mjs';

// Not in the root ESLint config's list of Node globals; taking it from globalThis keeps no-undef quiet.
const { AbortSignal } = globalThis;

const READY_TIMEOUT_MS = 60_000;
const PROBE_TIMEOUT_MS = 2_000;
const PROBE_INTERVAL_MS = 200;
// A server that answers, but not with 2xx, will not get better by waiting: give up after this many.
const MAX_HTTP_REFUSALS = 5;
const LOG_LINES = 40;

/**
 * A port that was free a moment ago on 127.0.0.1 (bind to port 0, read it, release it).
 *
 * @example
 * const port = await freePort();
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 'conformance-runner-probe',
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'keel-conformance-runner-probe', version: '0.0.0' },
  },
});

async function probeOnce(url) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: INITIALIZE,
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  // Drain the body so the socket is released; the content itself does not matter here.
  await response.arrayBuffer().catch(() => undefined);
  const sessionId = response.headers.get('mcp-session-id');
  if (sessionId) {
    // End the probe's session so it is not counted among the suite's.
    await fetch(url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  }
  return response.status;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the fixture server command (a shell string) with `PORT` set, and resolves once a POST
 * `initialize` to `url` gets a 2xx answer. Rejects, with the server's log tail, if the process exits
 * first or nothing answers within 60 s.
 *
 * @example
 * const server = await startFixtureServer('npm run --silent fixture:http', { port, url, logFile });
 * await server.stop();
 */
export async function startFixtureServer(command, { port, url, logFile, cwd }) {
  const handle = spawnTracked('sh', ['-c', command], {
    cwd,
    logFile,
    env: { ...process.env, PORT: String(port) },
  });
  const stop = () => stopChild(handle, 5_000);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastProblem = 'no answer yet';
  let refusals = 0;
  while (Date.now() < deadline) {
    if (!handle.running) {
      const exit = await handle.exited;
      throw new Error(
        `fixture server \`${command}\` exited (code ${exit?.code}, signal ${exit?.signal}) before answering ` +
          `${url}. Log ${logFile}, last lines:\n${lastLines(handle.tail, LOG_LINES)}`,
      );
    }
    try {
      const status = await probeOnce(url);
      if (status >= 200 && status < 300) return { handle, stop };
      lastProblem = `POST initialize answered HTTP ${status}`;
      refusals += 1;
      if (refusals >= MAX_HTTP_REFUSALS) break;
    } catch (error) {
      lastProblem = error?.cause?.code ?? error?.message ?? String(error);
    }
    await pause(PROBE_INTERVAL_MS);
  }
  await stop();
  throw new Error(
    `fixture server \`${command}\` did not accept POST initialize at ${url} (waited at most ` +
      `${READY_TIMEOUT_MS / 1000}s; last: ${lastProblem}). Log ${logFile}, last lines:\n${lastLines(handle.tail, LOG_LINES)}`,
  );
}
