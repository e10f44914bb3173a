/**
 * `keel doctor`'s Streamable HTTP checks (issue 29): raw requests (fetch), so doctor sees the
 * statuses and bodies as they are. Each check opens its own session and ends it.
 */
import { request as httpRequest } from 'node:http';
import type { CheckStatus } from './report.js';
import { PROTOCOL } from './stdio-checks.js';
import {
  minimalArguments,
  pickTools,
  type ListedTool,
  type ToolHints,
  type ToolPicks,
} from './tool-picker.js';

const MODERN = '2026-07-28';

export interface HttpTarget {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly timeoutMs: number;
  readonly readOnly: boolean;
  readonly picks: ToolPicks;
  readonly args: Record<string, unknown> | undefined;
  /** The server keeps sessions (it sent `Mcp-Session-Id`). */
  readonly stateful: boolean;
  /** It answered `server/discover` (2026-07-28). */
  readonly modern: boolean;
}

type Outcome = { status: CheckStatus; observed: string };

export interface HttpCheck {
  id: string;
  title: string;
  why: string;
  ref: string;
  run(target: HttpTarget): Promise<Outcome>;
}

let nextId = 500;

interface Answer {
  status: number;
  headers: Headers;
  /** The JSON-RPC messages in the body (JSON, or SSE `data:` lines), as far as they were read. */
  messages: Record<string, unknown>[];
  text: string;
}

/** POST `body`, read the answer (bounded in time and size). */
async function post(
  target: HttpTarget,
  body: string,
  extra: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...target.headers,
      ...extra,
    },
    body,
    signal: signal ?? AbortSignal.timeout(target.timeoutMs),
  });
  return read(response);
}

/** A POST over node:http (which sends the headers as given, Host included); status and session. */
function rawPost(
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

async function read(response: Response): Promise<Answer> {
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
interface EventStream {
  readonly status: number;
  readonly headers: Headers;
  /** The next event (its id and parsed data), or undefined after `ms` or at the end. */
  next(ms: number): Promise<{ id?: string; message?: Record<string, unknown> } | undefined>;
  close(): void;
}

async function openStream(
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
async function openSession(target: HttpTarget): Promise<Record<string, string>> {
  const answer = await post(target, initialize(++nextId));
  const session = answer.headers.get('mcp-session-id');
  const headers: Record<string, string> = { 'mcp-protocol-version': PROTOCOL };
  if (session) headers['mcp-session-id'] = session;
  await post(target, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers).catch(
    () => undefined,
  );
  return headers;
}

async function closeSession(target: HttpTarget, headers: Record<string, string>): Promise<void> {
  if (!headers['mcp-session-id']) return;
  await fetch(target.url, {
    method: 'DELETE',
    headers: { ...target.headers, ...headers },
    signal: AbortSignal.timeout(target.timeoutMs),
  })
    .then((r) => r.body?.cancel())
    .catch(() => undefined);
}

function initialize(requestId: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: requestId,
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL,
      capabilities: { sampling: {}, elicitation: {} },
      clientInfo: { name: 'keel-doctor', version: '0.1.0' },
    },
  });
}

async function ping(target: HttpTarget, headers: Record<string, string>): Promise<boolean> {
  try {
    const answer = await post(
      target,
      JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'ping' }),
      headers,
    );
    return answer.status === 200 && answer.messages.some((m) => m.result !== undefined);
  } catch {
    return false;
  }
}

function toolCall(tool: ListedTool, target: HttpTarget, requestId: number, progress = false): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: requestId,
    method: 'tools/call',
    params: {
      name: tool.name,
      arguments: minimalArguments(tool, target.args),
      // Progress, where the tool reports it, puts events (with ids) on the stream before the answer.
      ...(progress ? { _meta: { progressToken: `doctor-${requestId}` } } : {}),
    },
  });
}

/** A 2026-07-28 request: its `_meta` and headers (version, method). */
function modernRequest(method: string, version: string): { body: string; headers: Record<string, string> } {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'keel-doctor', version: '0.1.0' },
  };
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params: { _meta } }),
    headers: { 'mcp-protocol-version': version, 'mcp-method': method },
  };
}

const READ_ONLY: Outcome = { status: 'n/a', observed: 'not run: --read-only (no tool calls)' };
const NO_SESSIONS: Outcome = { status: 'n/a', observed: 'the server keeps no sessions' };
const HINT = {
  slow: 'no tool that runs for a while was found (give one with --slow-tool)',
  asking: 'no tool that asks the client for input was found (give one with --sampling-tool)',
} as const;

/** The tool of `kind` a check calls, or why the check does not apply. */
function needTool(target: HttpTarget, kind: 'slow' | 'asking'): ListedTool | Outcome {
  if (target.readOnly) return READ_ONLY;
  return target.picks[kind] ?? { status: 'n/a', observed: HINT[kind] };
}

/** Run `body` in a session of its own, always ended afterwards. */
async function inSession(
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

const isLocal = (url: string): boolean => ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);

export const HTTP_CHECKS: HttpCheck[] = [
  {
    id: 'http.origin',
    title: 'a request from a foreign Origin',
    why: 'Without an Origin check, any web page the user opens can call a local MCP server (DNS rebinding).',
    ref: 'spec basic/transports#security-warning ("Servers MUST validate the Origin header")',
    run: async (target) => {
      const answer = await post(target, initialize(++nextId), { origin: 'https://evil.example' });
      if (answer.status === 403) return { status: 'pass', observed: 'refused with 403' };
      if (answer.status >= 400) return { status: 'pass', observed: `refused with ${answer.status}` };
      const session = answer.headers.get('mcp-session-id');
      if (session) await closeSession(target, { 'mcp-session-id': session });
      return {
        status: 'fail',
        observed: `answered ${answer.status}: a page on https://evil.example could use this server`,
      };
    },
  },
  {
    id: 'http.host',
    title: 'a foreign Host header',
    why: 'A server on localhost that accepts any Host is reachable through DNS rebinding even with Origin checks.',
    ref: 'spec basic/transports#security-warning; MCP TypeScript SDK advisory GHSA-w48q-cv73-mx4w',
    run: async (target) => {
      if (!isLocal(target.url)) return { status: 'n/a', observed: 'the server is not on localhost' };
      // fetch sets Host from the URL: node:http sends the one given.
      const { status, session } = await rawPost(target, initialize(++nextId), { host: 'evil.example' });
      if (status === 403 || status === 421 || status === 400)
        return { status: 'pass', observed: `refused with ${status}` };
      if (session) await closeSession(target, { 'mcp-session-id': session });
      return { status: 'fail', observed: `answered ${status} to Host: evil.example` };
    },
  },
  {
    id: 'http.malformed-body',
    title: 'a body that is not JSON',
    why: 'A bad request must get a clear 400 with a JSON-RPC parse error, and must not break the server for others.',
    ref: 'spec basic/transports (400 for invalid input); JSON-RPC 2.0 §5.1 (-32700)',
    run: async (target) => {
      return inSession(target, async (headers) => {
        const answer = await post(target, '{"jsonrpc": "2.0", "id": 1, "method": ', headers);
        const parseError = answer.messages.some(
          (m) => (m.error as { code?: number } | undefined)?.code === -32700,
        );
        if (!(await ping(target, headers)))
          return { status: 'fail', observed: `answered ${answer.status}, then stopped serving the session` };
        if (answer.status === 400 && parseError)
          return { status: 'pass', observed: 'answered 400 with -32700; still serving' };
        if (answer.status >= 400 && answer.status < 500)
          return {
            status: 'pass',
            observed: `answered ${answer.status}${parseError ? ' with -32700' : ''}; still serving`,
          };
        return { status: 'fail', observed: `answered ${answer.status} (expected 400 with a -32700 error)` };
      });
    },
  },
  {
    id: 'http.oversized-body',
    title: 'an 8 MiB body',
    why: 'A server that reads any body whole can be made to run out of memory by one request.',
    ref: 'lifecycle.md G12 (bounded input); RFC 9110 §15.5.14 (413 Content Too Large)',
    run: async (target) => {
      return inSession(target, async (headers) => {
        let status: number | string;
        try {
          status = (
            await post(
              target,
              JSON.stringify({
                jsonrpc: '2.0',
                id: ++nextId,
                method: 'ping',
                params: { pad: 'x'.repeat(8 * 1024 * 1024) },
              }),
              headers,
            )
          ).status;
        } catch (error) {
          status = `no answer (${(error as Error).message})`;
        }
        if (!(await ping(target, headers)))
          return { status: 'fail', observed: `${status}, then the server stopped serving` };
        if (status === 413 || status === 400)
          return { status: 'pass', observed: `refused with ${status}; still serving` };
        return {
          status: 'fail',
          observed: `answered ${status}: an 8 MiB body was read in full (expected 413)`,
        };
      });
    },
  },
  {
    id: 'http.delete-during-call',
    title: 'DELETE while a call runs',
    why: "Ending a session must end its work: a handler still running for a deleted session holds the server's resources and may answer nobody.",
    ref: 'spec basic/transports#session-management (DELETE ends the session); lifecycle.md G4',
    run: async (target) => {
      if (!target.stateful) return NO_SESSIONS;
      const slow = needTool(target, 'slow');
      if ('status' in slow) return slow;
      const headers = await openSession(target);
      const controller = new AbortController();
      const bound = setTimeout(() => controller.abort(), target.timeoutMs);
      const call = post(target, toolCall(slow, target, ++nextId), headers, controller.signal).then(
        (answer) =>
          `answered ${answer.status}${answer.messages.some((m) => m.error) ? ' with an error' : ''}`,
        (error: Error) => (controller.signal.aborted ? 'hung' : `cut (${error.message})`),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      const deleted = await fetch(target.url, {
        method: 'DELETE',
        headers: { ...target.headers, ...headers },
        signal: AbortSignal.timeout(target.timeoutMs),
      }).then(
        (r) => (void r.body?.cancel(), r.status),
        () => 0,
      );
      const outcome = await call;
      clearTimeout(bound);
      if (deleted === 405) return { status: 'n/a', observed: 'the server does not allow DELETE (405)' };
      if (outcome === 'hung')
        return {
          status: 'fail',
          observed: `the call was still open ${target.timeoutMs} ms after DELETE (${deleted})`,
        };
      const after = await post(
        target,
        JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'ping' }),
        headers,
      ).catch(() => undefined);
      if (after && after.status !== 404)
        return {
          status: 'fail',
          observed: `DELETE answered ${deleted}, the call ${outcome}, but the session still answers (${after.status}, expected 404)`,
        };
      return {
        status: 'pass',
        observed: `DELETE answered ${deleted}; the call ${outcome}; later requests get 404`,
      };
    },
  },
  {
    id: 'http.disconnect-mid-stream',
    title: 'the client drops its stream mid-call',
    why: 'Clients drop connections (a laptop lid, a proxy timeout): the server must go on serving the session and everyone else.',
    ref: 'spec basic/transports ("disconnection SHOULD NOT be interpreted as the client cancelling its request"); lifecycle.md G5',
    run: async (target) => {
      const slow = needTool(target, 'slow');
      if ('status' in slow) return slow;
      return inSession(target, async (headers) => {
        const stream = await openStream(target, {
          method: 'POST',
          body: toolCall(slow, target, ++nextId),
          headers,
        });
        await stream.next(300);
        stream.close();
        await new Promise((resolve) => setTimeout(resolve, 200));
        if (!(await ping(target, headers)))
          return {
            status: 'fail',
            observed: "after the client dropped a call's stream, the session stopped answering",
          };
        return {
          status: 'pass',
          observed: 'the session and the server went on after the stream was dropped',
        };
      });
    },
  },
  {
    id: 'http.resume',
    title: 'resuming a cut stream with Last-Event-ID',
    why: 'A client whose connection dropped mid-call gets the rest of the answer instead of losing the call.',
    ref: 'spec basic/transports#resumability-and-redelivery',
    run: async (target) => {
      if (!target.stateful) return NO_SESSIONS;
      const slow = needTool(target, 'slow');
      if ('status' in slow) return slow;
      if (slow === target.picks.asking)
        return {
          status: 'n/a',
          observed: 'no tool that runs for a while on its own was found (give one with --slow-tool)',
        };
      return inSession(target, async (headers) => {
        const callId = ++nextId;
        const stream = await openStream(target, {
          method: 'POST',
          body: toolCall(slow, target, callId, true),
          headers,
        });
        let lastId: string | undefined;
        for (let i = 0; i < 3 && lastId === undefined; i++) {
          const event = await stream.next(target.timeoutMs);
          if (!event) break;
          if (event.message?.id === callId && event.message.method === undefined) {
            stream.close();
            return {
              status: 'n/a',
              observed: `the stream carried no event ids before "${slow.name}" answered (not resumable)`,
            };
          }
          lastId = event.id;
        }
        stream.close();
        if (lastId === undefined)
          return { status: 'n/a', observed: 'the stream carried no event ids (not resumable)' };
        const resumed = await openStream(target, {
          method: 'GET',
          headers: { ...headers, 'last-event-id': lastId },
        });
        try {
          if (resumed.status !== 200)
            return { status: 'fail', observed: `GET with Last-Event-ID answered ${resumed.status}` };
          for (;;) {
            const event = await resumed.next(target.timeoutMs);
            if (!event)
              return {
                status: 'fail',
                observed: `the resumed stream did not bring the call's answer within ${target.timeoutMs} ms`,
              };
            if (event.message?.id === callId && event.message.method === undefined)
              return { status: 'pass', observed: 'the resumed stream brought the rest, the answer included' };
          }
        } finally {
          resumed.close();
        }
      });
    },
  },
  {
    id: 'http.nested-cancel',
    title: 'cancelling a call that waits on the client',
    why: "A cancelled call's own requests to the client (sampling, elicitation) must be cancelled too, or the client keeps a dialog open for nothing.",
    ref: 'spec basic/utilities/cancellation; lifecycle.md G7 (nested requests end with their parent)',
    run: async (target) => {
      const asking = needTool(target, 'asking');
      if ('status' in asking) return asking;
      return inSession(target, async (headers) => {
        const callId = ++nextId;
        const stream = await openStream(target, {
          method: 'POST',
          body: toolCall(asking, target, callId),
          headers,
        });
        try {
          let nested: Record<string, unknown> | undefined;
          for (let i = 0; i < 5 && !nested; i++) {
            const event = await stream.next(target.timeoutMs);
            if (!event) break;
            if (typeof event.message?.method === 'string' && event.message.id !== undefined)
              nested = event.message;
          }
          if (!nested) return { status: 'n/a', observed: `"${asking.name}" sent no request on its stream` };
          await post(
            target,
            JSON.stringify({
              jsonrpc: '2.0',
              method: 'notifications/cancelled',
              params: { requestId: callId, reason: 'doctor' },
            }),
            headers,
          );
          for (;;) {
            const event = await stream.next(target.timeoutMs);
            if (!event)
              return {
                status: 'fail',
                observed: `no notifications/cancelled for its ${String(nested.method)} request within ${target.timeoutMs} ms`,
              };
            const params = event.message?.params as { requestId?: unknown } | undefined;
            if (event.message?.method === 'notifications/cancelled' && params?.requestId === nested.id)
              return {
                status: 'pass',
                observed: `its ${String(nested.method)} request was cancelled with it`,
              };
          }
        } finally {
          stream.close();
        }
      });
    },
  },
  {
    id: 'http.session-churn',
    title: '50 sessions opened and deleted',
    why: 'Clients reconnect all day: sessions that are not freed are a slow leak that ends in an out-of-memory restart.',
    ref: 'lifecycle.md G13 (bounded sessions)',
    run: async (target) => {
      if (!target.stateful) return NO_SESSIONS;
      let failures = 0;
      let stale = 0;
      for (let i = 0; i < 50; i++) {
        const headers = await openSession(target).catch(() => undefined);
        if (!headers?.['mcp-session-id']) {
          failures++;
          continue;
        }
        await closeSession(target, headers);
        const after = await post(
          target,
          JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'ping' }),
          headers,
        ).catch(() => undefined);
        if (after && after.status !== 404) stale++;
      }
      if (failures > 0) return { status: 'fail', observed: `${failures} of 50 new sessions failed` };
      if (stale > 0) return { status: 'fail', observed: `${stale} of 50 deleted sessions still answered` };
      return { status: 'pass', observed: '50 sessions opened and deleted; each deleted one answers 404' };
    },
  },
  {
    id: 'modern.discover',
    title: 'server/discover (2026-07-28)',
    why: 'A 2026-07-28 client learns the versions and capabilities there, without a handshake.',
    ref: 'spec 2026-07-28 basic/lifecycle (server/discover)',
    run: async (target) => {
      if (!target.modern) return { status: 'n/a', observed: 'the server does not offer 2026-07-28' };
      return { status: 'pass', observed: 'answered with its versions and capabilities' };
    },
  },
  {
    id: 'modern.version-check',
    title: 'a request naming an unsupported version',
    why: 'Each 2026-07-28 request names its version; one the server does not speak must be refused, not misread.',
    ref: 'spec 2026-07-28 basic/transports (MCP-Protocol-Version: 400 for an unsupported version)',
    run: async (target) => {
      if (!target.modern) return { status: 'n/a', observed: 'the server does not offer 2026-07-28' };
      const request = modernRequest('tools/list', '2099-01-01');
      const answer = await post(target, request.body, request.headers);
      if (answer.status === 400 || answer.messages.some((m) => m.error !== undefined))
        return { status: 'pass', observed: `refused (${answer.status})` };
      return { status: 'fail', observed: `answered ${answer.status} with a result for version 2099-01-01` };
    },
  },
];

/** The first contact: the handshake (fatal when it fails), sessions or not, the era, the tools. */
export async function probeHttp(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  hints: ToolHints,
): Promise<{
  fatal?: string;
  init?: Record<string, unknown>;
  stateful: boolean;
  modern: boolean;
  tools: ListedTool[];
  picks: ToolPicks;
}> {
  const none = { stateful: false, modern: false, tools: [], picks: {} };
  const target: HttpTarget = {
    url,
    headers,
    timeoutMs,
    readOnly: true,
    picks: {},
    args: undefined,
    stateful: false,
    modern: false,
  };
  let answer: Answer;
  try {
    answer = await post(target, initialize(++nextId));
  } catch (error) {
    return { ...none, fatal: `no answer from ${url}: ${(error as Error).message}` };
  }
  const init = answer.messages.find((m) => m.result !== undefined)?.result as
    Record<string, unknown> | undefined;
  if (!init || typeof init.protocolVersion !== 'string') {
    const type = answer.headers.get('content-type') ?? 'no content type';
    return {
      ...none,
      fatal: `initialize got HTTP ${answer.status} (${type}) without an MCP answer: is ${url} an MCP endpoint? ${JSON.stringify(answer.text.slice(0, 120))}`,
    };
  }
  const session = answer.headers.get('mcp-session-id');
  const sessionHeaders: Record<string, string> = { 'mcp-protocol-version': PROTOCOL };
  if (session) sessionHeaders['mcp-session-id'] = session;
  await post(
    target,
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    sessionHeaders,
  ).catch(() => undefined);
  const listed = await post(
    target,
    JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: 'tools/list' }),
    sessionHeaders,
  ).catch(() => undefined);
  const tools = (
    (listed?.messages.find((m) => m.result)?.result as { tools?: ListedTool[] } | undefined)?.tools ?? []
  ).filter((tool) => typeof tool?.name === 'string');
  await closeSession(target, sessionHeaders);
  const request = modernRequest('server/discover', MODERN);
  const discover = await post(target, request.body, request.headers).catch(() => undefined);
  const modern = discover?.status === 200 && discover.messages.some((m) => m.result !== undefined);
  return { init, stateful: session !== null, modern, tools, picks: pickTools(tools, hints) };
}
