/**
 * The official v2 client (`@modelcontextprotocol/client` 2.4.0) connected to Keel's conformance
 * fixture (plus the probe and interop tools) in the 2026-07-28 era, over Streamable HTTP or
 * stdio, with what the tests need to see: every message the client put on the wire, the probe
 * events of the server's handlers, and what the client's sampling, elicitation and roots handlers
 * were asked.
 *
 * The client only speaks 2026-07-28 when asked to: `versionNegotiation.mode` is `'auto'` (probe
 * with `server/discover`, fall back to `initialize` on anything that is not a modern answer) or
 * `{ pin: '2026-07-28' }` (no fallback). The default, `'legacy'`, is the 2025 handshake.
 */
import {
  Client,
  StreamableHTTPClientTransport,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { createFixtureServer } from '../../../examples/fixture-server.js';
import { within } from '../../helpers/guard.js';
import { registerProbeTools } from '../fixtures/probe-tools.mjs';
import { SAMPLING_REPLY, elicitationAnswer } from './fixture-expectations.js';
import { hostHttp, type HttpHost, type HttpMode } from './http-server.js';
import { registerInteropTools } from './interop-tools.mjs';
import { ProbeLog } from './probes.js';

export const MODERN = '2026-07-28';
export const INTEROP_STDIO = 'test/e2e/support/interop-stdio-server.mjs';
export const CLIENT_INFO = { name: 'e2e-official-v2', version: '2.4.0' };
export const ROOTS = [{ uri: 'file:///srv/project', name: 'project' }];

/** The one-field answers given to the fixture's input-required tools, by the field they ask for. */
export const ANSWERS: Record<string, string | boolean> = {
  name: 'Ada',
  color: 'teal',
  ok: true,
  context: 'interop',
};

/** A one-field form the fixture's input-required tools ask with gets its canned answer; the rest as in the legacy e2e suites. */
function elicitationReply(requestedSchema: unknown): {
  action: 'accept' | 'decline';
  content?: Record<string, string | boolean>;
} {
  const fields = Object.keys((requestedSchema as { properties?: object }).properties ?? {});
  const field = fields[0];
  const answer = fields.length === 1 && field !== undefined ? ANSWERS[field] : undefined;
  if (field !== undefined && answer !== undefined) return { action: 'accept', content: { [field]: answer } };
  return elicitationAnswer(requestedSchema);
}

export type Negotiation = 'auto' | 'pin';
export type V2Target = 'stdio' | `http-${HttpMode}`;
export const V2_TARGETS: readonly V2Target[] = ['http-stateful', 'http-stateless', 'stdio'];

/** One HTTP request as the client's `fetch` sent it. */
export interface HttpCall {
  method: string;
  headers: Record<string, string>;
  body: unknown;
  /** The response's status, once it arrived. */
  status?: number;
}

export interface OfficialV2 {
  client: Client;
  /** Every JSON-RPC message the client sent on the connection it kept (not the stdio probe sibling). */
  sent: JSONRPCMessage[];
  /** Every JSON-RPC message the client received after connecting. */
  received: JSONRPCMessage[];
  /** HTTP only: every request the client's fetch made, the `server/discover` probe included. */
  http: HttpCall[];
  host?: HttpHost | undefined;
  probes: ProbeLog;
  sampled: Record<string, unknown>[];
  elicited: Record<string, unknown>[];
  rootsAsked: number;
  logs: { level: string; data: unknown }[];
  /** Forget what was recorded so far (one connection serves several tests). */
  reset(): void;
  close(): Promise<void>;
}

function recordHttp(calls: HttpCall[]): typeof fetch {
  return async (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const text = typeof init?.body === 'string' ? init.body : undefined;
    const call: HttpCall = {
      method: init?.method ?? 'GET',
      headers,
      body: text === undefined ? undefined : JSON.parse(text),
    };
    calls.push(call);
    const response = await fetch(input, init);
    call.status = response.status;
    return response;
  };
}

/** Connect the official v2 client to the fixture on `target`, negotiating the 2026-07-28 era. */
export async function connectOfficialV2(
  target: V2Target,
  negotiation: Negotiation = 'auto',
): Promise<OfficialV2> {
  const probes = new ProbeLog();
  const state = {
    sent: [] as JSONRPCMessage[],
    received: [] as JSONRPCMessage[],
    http: [] as HttpCall[],
    sampled: [] as Record<string, unknown>[],
    elicited: [] as Record<string, unknown>[],
    rootsAsked: 0,
    logs: [] as { level: string; data: unknown }[],
  };
  const client = new Client(CLIENT_INFO, {
    capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } }, roots: {} },
    versionNegotiation: { mode: negotiation === 'auto' ? 'auto' : { pin: MODERN } },
  });
  // The same handlers a legacy connection would call for server→client requests: the client's
  // input_required driver calls them for each round's inputRequests.
  client.setRequestHandler('sampling/createMessage', (request) => {
    state.sampled.push(request.params);
    return { role: 'assistant', content: { type: 'text', text: SAMPLING_REPLY }, model: 'e2e-model' };
  });
  client.setRequestHandler('elicitation/create', (request) => {
    state.elicited.push(request.params);
    return elicitationReply('requestedSchema' in request.params ? request.params.requestedSchema : {});
  });
  client.setRequestHandler('roots/list', () => {
    state.rootsAsked++;
    return { roots: ROOTS };
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    state.logs.push(notification.params);
  });

  let host: HttpHost | undefined;
  let transport: Transport;
  if (target === 'stdio') {
    if (!existsSync('dist/examples/fixture-server.js'))
      throw new Error('dist/ is missing: run `npm run build` first');
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [INTEROP_STDIO],
      stderr: 'pipe',
    });
    (stdio.stderr as Readable).setEncoding('utf8').on('data', probes.feed);
    transport = stdio;
  } else {
    const server = createFixtureServer();
    registerProbeTools(server, probes.record);
    registerInteropTools(server);
    host = await hostHttp(server, target === 'http-stateful' ? 'stateful' : 'stateless');
    transport = new StreamableHTTPClientTransport(new URL(host.url), { fetch: recordHttp(state.http) });
  }
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    state.sent.push(message);
    return send(message, options);
  };
  try {
    await within(client.connect(transport), 10_000, 'official v2 client connect');
  } catch (error) {
    await host?.close();
    throw error;
  }
  // Wrapped after connect: the client installs its own handler while connecting.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    state.received.push(message);
    deliver?.(message, extra);
  };
  return Object.assign(state, {
    client,
    host,
    probes,
    reset() {
      for (const list of [
        state.sent,
        state.received,
        state.http,
        state.sampled,
        state.elicited,
        state.logs,
      ]) {
        list.length = 0;
      }
      state.rootsAsked = 0;
      probes.events.length = 0;
    },
    async close() {
      await within(client.close(), 10_000, 'official v2 client close');
      await host?.close();
    },
  });
}
