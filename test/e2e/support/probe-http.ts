/**
 * Setup for the HTTP lifecycle suite: the probe server over real HTTP (stateful), and an
 * McpClient whose elicitation handler never answers by itself — it waits for its own abort — so
 * a call to `e2e_ask` stays blocked on elicitation until the test ends it some other way.
 */
import { McpClient, type McpClientConnectOptions } from 'keel-mcp/client';
import type { ServeHttpOptions } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import {
  StreamableHttpClientTransport,
  type StreamableHttpClientOptions,
  type SessionEndReason,
} from 'keel-mcp/http';
import { within } from '../../helpers/guard.js';
import { registerProbeTools } from '../fixtures/probe-tools.mjs';
import { hostHttp, type HttpHost } from './http-server.js';
import { ProbeLog } from './probes.js';

export interface ProbeHttp {
  host: HttpHost;
  probes: ProbeLog;
  /** `onSessionEnd` reasons, in order. */
  ended: SessionEndReason[];
}

/** The probe server on 127.0.0.1:0 with sessions; SSE `retry` kept short so lost streams fail fast. */
export async function startProbeHttp(options: ServeHttpOptions = {}): Promise<ProbeHttp> {
  const probes = new ProbeLog();
  const ended: SessionEndReason[] = [];
  const server = new McpServer({ name: 'e2e-probe', version: '1.0.0' });
  registerProbeTools(server, probes.record);
  const host = await hostHttp(server, 'stateful', {
    retryMs: 20,
    onSessionEnd: (_id, reason) => void ended.push(reason),
    ...options,
  });
  return { host, probes, ended };
}

export interface WaitingClient {
  client: McpClient;
  transport: StreamableHttpClientTransport;
  /** Resolves with the client handler's signal once the server's elicitation reached it (bounded). */
  asked: () => Promise<AbortSignal>;
}

/** Connect an McpClient whose elicitation handler waits until its own signal aborts. */
export async function connectWaitingClient(
  url: string,
  transportOptions: StreamableHttpClientOptions = {},
  options: McpClientConnectOptions = {},
): Promise<WaitingClient> {
  let reached!: (signal: AbortSignal) => void;
  const asked = new Promise<AbortSignal>((resolve) => (reached = resolve));
  const transport = new StreamableHttpClientTransport(url, transportOptions);
  const client = await within(
    McpClient.connect(transport, {
      info: { name: 'e2e-lifecycle', version: '1.0.0' },
      era: 'legacy', // sessions, server→client requests on the POST stream
      elicitation: {
        form: (_params, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
            reached(ctx.signal);
          }),
      },
      ...options,
    }),
    5_000,
    'connect',
  );
  return { client, transport, asked: () => within(asked, 5_000, 'elicitation reaching the client') };
}

/** Settle `promise` into its value or its rejection (bounded): the test then inspects either. */
export function settle(promise: Promise<unknown>, ms = 5_000): Promise<unknown> {
  return within(
    promise.then(
      (value: unknown) => value,
      (error: unknown) => error,
    ),
    ms,
    'pending call',
  );
}
