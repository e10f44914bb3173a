/**
 * The transports the Keel-client matrix runs on, each able to connect an `McpClient` to either
 * the conformance fixture or the probe server (a fresh McpServer with fixtures/probe-tools.mjs).
 *
 * What a transport cannot do is stated in its row, so a test checks the documented limitation
 * instead of silently skipping: legacy-era stateless HTTP has no route for server→client requests
 * and no stream for broadcasts, and a client abort there ends the exchange's connection.
 *
 * The matrix checks the handshake era (`era: 'legacy'`: subscriptions, list_changed broadcasts,
 * session log levels); the 2026-07-28 client has its own tests in test/client-modern.
 */
import { existsSync } from 'node:fs';
import { McpClient, type McpClientConnectOptions } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { createMemoryPair } from 'keel-mcp/memory';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { createFixtureServer } from '../../../examples/fixture-server.js';
import { within } from '../../helpers/guard.js';
import { registerProbeTools } from '../fixtures/probe-tools.mjs';
import { hostHttp, type HttpMode } from './http-server.js';
import { ProbeLog } from './probes.js';

export type ServerKind = 'fixture' | 'probe';

export const FIXTURE_STDIO = 'dist/examples/fixture-stdio.js';
export const PROBE_STDIO = 'test/e2e/fixtures/probe-stdio-server.mjs';

export interface Connected {
  client: McpClient;
  probes: ProbeLog;
  /** Resolves once server broadcasts (list_changed) can reach the client. */
  broadcastsReady: () => Promise<void>;
  /** Live server-side sessions, where the test can see them (not across a process boundary). */
  serverSessions?: () => number;
  /** Close the client, then whatever hosts the server; bounded. */
  close: () => Promise<void>;
}

export interface Target {
  name: string;
  /** Server→client requests (sampling, elicitation) reach the client. */
  backChannel: boolean;
  /** Broadcasts not tied to a request (list_changed) reach the client. */
  broadcasts: boolean;
  /** Session state (log level) survives between requests. */
  sessions: boolean;
  /** The class name of `ctx.signal.reason` in a handler whose call the client aborted. */
  abortReason: 'CancelledByPeerError' | 'ConnectionClosedError';
  connect(kind: ServerKind, options: McpClientConnectOptions): Promise<Connected>;
}

const INFO = { name: 'e2e-keel', version: '1.0.0' };

function createServer(kind: ServerKind, probes: ProbeLog): McpServer {
  if (kind === 'fixture') return createFixtureServer();
  const server = new McpServer({ name: 'e2e-probe', version: '1.0.0' });
  registerProbeTools(server, probes.record);
  return server;
}

const ready = (): Promise<void> => Promise.resolve();

const memory: Target = {
  name: 'in-memory pair',
  backChannel: true,
  broadcasts: true,
  sessions: true,
  abortReason: 'CancelledByPeerError',
  async connect(kind, options) {
    const probes = new ProbeLog();
    const [clientSide, serverSide] = createMemoryPair();
    const server = createServer(kind, probes);
    const session = server.connect(serverSide);
    const client = await within(
      McpClient.connect(clientSide, { info: INFO, era: 'legacy', ...options }),
      5_000,
      'connect',
    );
    return {
      client,
      probes,
      broadcastsReady: ready,
      serverSessions: () => server.sessions.size,
      async close() {
        await within(client.close(), 5_000, 'client close');
        await within(session.closed, 5_000, 'server session close');
      },
    };
  },
};

const stdio: Target = {
  name: 'stdio child process',
  backChannel: true,
  broadcasts: true,
  sessions: true,
  abortReason: 'CancelledByPeerError',
  async connect(kind, options) {
    if (!existsSync(FIXTURE_STDIO))
      throw new Error(`${FIXTURE_STDIO} is missing: run \`npm run build\` first`);
    const probes = new ProbeLog();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [kind === 'fixture' ? FIXTURE_STDIO : PROBE_STDIO],
      stderr: 'pipe',
      onStderr: probes.feed,
    });
    const client = await within(
      McpClient.connect(transport, { info: INFO, era: 'legacy', ...options }),
      10_000,
      'connect',
    );
    return {
      client,
      probes,
      broadcastsReady: ready,
      close: () => within(client.close(), 10_000, 'client close (child exit)'),
    };
  },
};

function http(mode: HttpMode): Target {
  const stateful = mode === 'stateful';
  return {
    name: `Streamable HTTP (${mode})`,
    backChannel: stateful,
    broadcasts: stateful,
    sessions: stateful,
    // Stateless: the abort drops the request's stream first, which ends that exchange's connection.
    abortReason: stateful ? 'CancelledByPeerError' : 'ConnectionClosedError',
    async connect(kind, options) {
      const probes = new ProbeLog();
      const host = await hostHttp(createServer(kind, probes), mode);
      const transport = new StreamableHttpClientTransport(host.url);
      let client: McpClient;
      try {
        client = await within(
          McpClient.connect(transport, { info: INFO, era: 'legacy', ...options }),
          5_000,
          'connect',
        );
      } catch (error) {
        await host.close();
        throw error;
      }
      return {
        client,
        probes,
        broadcastsReady: () => host.standaloneOpened(),
        serverSessions: () => host.serving.handler.sessionCount,
        async close() {
          await within(client.close(), 5_000, 'client close');
          await host.close();
        },
      };
    },
  };
}

export const TARGETS: readonly Target[] = [memory, stdio, http('stateful'), http('stateless')];
