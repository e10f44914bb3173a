/**
 * How `keel doctor` talks Streamable HTTP (issue 29): raw requests (fetch, and node:http where the
 * Host header must be forged), so doctor sees statuses and bodies as they are; every wait bounded.
 */
import { request as httpRequest } from 'node:http';
import { encodeHeaderValue } from '../../core/header-value.js';
import {
  DOCTOR_INFO,
  initializeRequest,
  LEGACY,
  toolCallRequest,
  type Outcome,
  type ToolTarget,
} from './check-kit.js';
import type { ListedTool } from './tool-picker.js';

/** What every HTTP check gets. */
export interface HttpTarget extends ToolTarget {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly timeoutMs: number;
  /** The server keeps sessions (it sent `Mcp-Session-Id`). */
  readonly stateful: boolean;
  /** It answered `server/discover` (2026-07-28). */
  readonly modern: boolean;
}

let nextId = 500;
/** A request id no other request of this run uses. */
export const nextRequestId = (): number => ++nextId;

export interface Answer {
  status: number;
  headers: Headers;
  /** The JSON-RPC messages in the body (JSON, or SSE `data:` lines), as far as they were read. */
  messages: Record<string, unknown>[];
  text: string;
}

/** The headers of every POST doctor sends. */
export const POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;

/** POST `body`, read the answer (bounded in time and size). */
export async function post(
  target: HttpTarget,
  body: string,
  extra: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...target.headers, ...extra },
    body,
    signal: signal ?? AbortSignal.timeout(target.timeoutMs),
  });
  return read(response);
}

/** A POST over node:http (which sends the headers as given, Host included); status and session. */
export function rawPost(
  target: HttpTarget,
  body: string,
  extra: Record<string, string>,
): Promise<{ status: number | string; session: string | undefined }> {
  const url = new URL(target.url);
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || 80,
        path: url.pathname + url.search,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...target.headers,
          ...extra,
        },
        timeout: target.timeoutMs,
      },
      (res) => {
        res.resume();
        const session = res.headers['mcp-session-id'];
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            session: typeof session === 'string' ? session : undefined,
          }),
        );
        res.on('error', () => resolve({ status: res.statusCode ?? 0, session: undefined }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ status: `no answer (${error.message})`, session: undefined }));
    req.end(body);
  });
}

export async function read(response: Response): Promise<Answer> {
  let text = '';
  try {
    text = (await response.text()).slice(0, 1024 * 1024);
  } catch {
    // Cut: what came is what we judge.
  }
  const messages: Record<string, unknown>[] = [];
  const type = response.headers.get('content-type') ?? '';
  const chunks = type.includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
    : [text];
  for (const chunk of chunks) {
    try {
      const parsed: unknown = JSON.parse(chunk);
      for (const message of Array.isArray(parsed) ? parsed : [parsed])
        if (typeof message === 'object' && message !== null)
          messages.push(message as Record<string, unknown>);
    } catch {
      // Not JSON.
    }
  }
  return { status: response.status, headers: response.headers, messages, text };
}

/** An SSE answer read event by event (bounded waits); `close` aborts it. */
export interface EventStream {
  readonly status: number;
  readonly headers: Headers;
  /** The next event (its id and parsed data), or undefined after `ms` or at the end. */
  next(ms: number): Promise<{ id?: string; message?: Record<string, unknown> } | undefined>;
  close(): void;
}

export async function openStream(
  target: HttpTarget,
  init: { method: 'POST' | 'GET'; body?: string; headers: Record<string, string> },
): Promise<EventStream> {
  const controller = new AbortController();
  const bound = setTimeout(() => controller.abort(), target.timeoutMs * 2);
  const response = await fetch(target.url, {
    method: init.method,
    headers: {
      accept: init.method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...target.headers,
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: init.body }),
    signal: controller.signal,
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  const close = (): void => {
    clearTimeout(bound);
    controller.abort();
  };
  return {
    status: response.status,
    headers: response.headers,
    close,
    async next(ms) {
      const until = Date.now() + ms;
      for (;;) {
        const cut = buffer.indexOf('\n\n');
        if (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: { id?: string; message?: Record<string, unknown> } = {};
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('id:')) event.id = line.slice(3).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
          }
          if (data.length > 0 && data.join('') !== '') {
            try {
              event.message = JSON.parse(data.join('\n')) as Record<string, unknown>;
            } catch {
              // Not JSON: an event without a message.
            }
          }
          return event;
        }
        if (ended || !reader || Date.now() >= until) return undefined;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const chunk = await Promise.race([
          reader.read().catch(() => ({ done: true, value: undefined })),
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), Math.max(0, until - Date.now()));
          }),
        ]);
        clearTimeout(timer);
        if (chunk === undefined) return undefined;
        if (chunk.done) ended = true;
        else buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, '\n');
      }
    },
  };
}

/** A new session (stateful servers): its headers for the requests that follow. */
export async function openSession(target: HttpTarget): Promise<Record<string, string>> {
  const answer = await post(target, initialize(nextRequestId()));
  const session = answer.headers.get('mcp-session-id');
  const headers: Record<string, string> = { 'mcp-protocol-version': LEGACY };
  if (session) headers['mcp-session-id'] = session;
  await post(target, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers).catch(
    () => undefined,
  );
  return headers;
}

export async function closeSession(target: HttpTarget, headers: Record<string, string>): Promise<void> {
  if (!headers['mcp-session-id']) return;
  await fetch(target.url, {
    method: 'DELETE',
    headers: { ...target.headers, ...headers },
    signal: AbortSignal.timeout(target.timeoutMs),
  })
    .then((r) => r.body?.cancel())
    .catch(() => undefined);
}

/** Doctor's `initialize`, as a POST body. */
export function initialize(requestId: number): string {
  return JSON.stringify(initializeRequest(requestId));
}

export async function ping(target: HttpTarget, headers: Record<string, string>): Promise<boolean> {
  try {
    const answer = await post(
      target,
      JSON.stringify({ jsonrpc: '2.0', id: nextRequestId(), method: 'ping' }),
      headers,
    );
    return answer.status === 200 && answer.messages.some((m) => m.result !== undefined);
  } catch {
    return false;
  }
}

export function toolCall(tool: ListedTool, target: HttpTarget, requestId: number, progress = false): string {
  // Progress, where the tool reports it, puts events (with ids) on the stream before the answer.
  return JSON.stringify(
    toolCallRequest(requestId, tool, target, progress ? `doctor-${requestId}` : undefined),
  );
}

/**
 * A 2026-07-28 request: `params` with the `_meta` every request carries (version, capabilities,
 * client info), and the headers that mirror the body (version, method, and the name a tool call,
 * prompt or resource read is about).
 */
export function modernRequest(
  method: string,
  version: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
): { body: string; headers: Record<string, string> } {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': DOCTOR_INFO,
  };
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': method };
  const name = params.name ?? params.uri;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id: nextRequestId(), method, params: { ...params, _meta } }),
    headers,
  };
}

/** Run `body` in a session of its own, always ended afterwards. */
export async function inSession(
  target: HttpTarget,
  body: (headers: Record<string, string>) => Promise<Outcome>,
): Promise<Outcome> {
  const headers = await openSession(target);
  try {
    return await body(headers);
  } finally {
    await closeSession(target, headers);
  }
}

/** Whether `url` names this machine (a Host header check only means something there). */
export const isLocal = (url: string): boolean =>
  ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
