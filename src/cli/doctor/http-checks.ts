/**
 * `keel doctor`'s Streamable HTTP checks for sessions (issue 29): each opens its own session and
 * ends it. The 2026-07-28 checks are in modern-checks.ts; the raw HTTP in http-peer.ts.
 */
import { needTool, notApplicable, type Check, type Outcome } from './check-kit.js';
import {
  closeSession,
  inSession,
  initialize,
  isLocal,
  nextRequestId,
  openSession,
  openStream,
  ping,
  post,
  POST_HEADERS,
  rawPost,
  toolCall,
  type HttpTarget,
} from './http-peer.js';
import { listeningPid, residentBytes } from './local-process.js';

/** An HTTP check. */
export type HttpCheck = Check<HttpTarget>;

const NO_SESSIONS = notApplicable('the server keeps no sessions');

/** Sessions churned; more, in rounds, when the server's memory can be weighed. */
const CHURN = 50;
const ROUNDS = 5;
const CHURN_ROUND = 100;
/** The last rounds judged: a heap that is still growing into its size has settled by then. */
const JUDGED_ROUNDS = 3;
/**
 * RSS growth per deleted session, in each of the judged rounds, that reads as a leak: far above
 * what a heap does before it is collected (the official SDK's grew ~130 KB per session in its
 * first rounds on a busy machine, then settled), far below a session that keeps its buffers (1 MiB
 * each in the broken fixture). Smaller leaks need a longer run than a check's minute (see
 * docs/soak.md).
 */
const LEAK_BYTES = 256 * 1024;

const mb = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);
const portOf = (url: string): number => {
  const parsed = new URL(url);
  return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
};

function judgeChurn(count: number, failures: number, stale: number): Outcome {
  if (failures > 0) return { status: 'fail', observed: `${failures} of ${count} new sessions failed` };
  if (stale > 0) return { status: 'fail', observed: `${stale} of ${count} deleted sessions still answered` };
  return { status: 'pass', observed: `${count} sessions opened and deleted; each deleted one answers 404` };
}

/** Open and delete `count` sessions; count those that failed to open and those still answering. */
async function churn(target: HttpTarget, count: number): Promise<{ failures: number; stale: number }> {
  let failures = 0;
  let stale = 0;
  for (let i = 0; i < count; i++) {
    const headers = await openSession(target).catch(() => undefined);
    if (!headers?.['mcp-session-id']) {
      failures++;
      continue;
    }
    await closeSession(target, headers);
    const after = await post(
      target,
      JSON.stringify({ jsonrpc: '2.0', id: nextRequestId(), method: 'ping' }),
      headers,
    ).catch(() => undefined);
    if (after && after.status !== 404) stale++;
  }
  return { failures, stale };
}

export const HTTP_CHECKS: HttpCheck[] = [
  {
    id: 'http.origin',
    title: 'a request from a foreign Origin',
    why: 'Without an Origin check, any web page the user opens can call a local MCP server (DNS rebinding).',
    ref: 'spec basic/transports#security-warning ("Servers MUST validate the Origin header")',
    run: async (target) => {
      const answer = await post(target, initialize(nextRequestId()), { origin: 'https://evil.example' });
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
      const { status, session } = await rawPost(target, initialize(nextRequestId()), {
        host: 'evil.example',
      });
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
                id: nextRequestId(),
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
      const call = post(target, toolCall(slow, target, nextRequestId()), headers, controller.signal).then(
        // A stream still open at the bound was cut by doctor (post keeps what came): it hung.
        (answer) =>
          controller.signal.aborted
            ? 'hung'
            : `answered ${answer.status}${answer.messages.some((m) => m.error) ? ' with an error' : ''}`,
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
        JSON.stringify({ jsonrpc: '2.0', id: nextRequestId(), method: 'ping' }),
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
        // Dropped 300 ms in, whether or not the server has sent its headers yet.
        const controller = new AbortController();
        const drop = setTimeout(() => controller.abort(), 300);
        const outcome = await fetch(target.url, {
          method: 'POST',
          headers: { ...POST_HEADERS, ...target.headers, ...headers },
          body: toolCall(slow, target, nextRequestId()),
          signal: controller.signal,
        })
          .then((response) => response.text())
          .then(
            () => 'answered',
            () => 'dropped',
          );
        clearTimeout(drop);
        if (outcome === 'answered')
          return notApplicable(`"${slow.name}" answered within 300 ms: nothing to drop mid-call`);
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
        const callId = nextRequestId();
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
        let resumed: Awaited<ReturnType<typeof openStream>>;
        try {
          resumed = await openStream(target, {
            method: 'GET',
            headers: { ...headers, 'last-event-id': lastId },
          });
        } catch {
          return {
            status: 'fail',
            observed: `GET with Last-Event-ID sent no answer (not even its headers) within ${2 * target.timeoutMs} ms`,
          };
        }
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
      // Without a session a cancel POSTed apart reaches no one who knows the call (each request
      // may meet a fresh server): nothing to check.
      if (!target.stateful)
        return notApplicable('the server keeps no sessions: a cancel sent apart cannot reach the call');
      const asking = needTool(target, 'asking');
      if ('status' in asking) return asking;
      return inSession(target, async (headers) => {
        const callId = nextRequestId();
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
    title: 'sessions opened and deleted, over and over',
    why: 'Clients reconnect all day: sessions that are not freed are a slow leak that ends in an out-of-memory restart.',
    ref: 'lifecycle.md G13 (bounded sessions)',
    run: async (target) => {
      if (!target.stateful) return NO_SESSIONS;
      // A server on this machine whose process /proc shows is weighed too: its RSS after each round.
      const pid = isLocal(target.url) ? listeningPid(portOf(target.url)) : undefined;
      if (pid === undefined) {
        const { failures, stale } = await churn(target, CHURN);
        return judgeChurn(CHURN, failures, stale);
      }
      await churn(target, CHURN); // warm-up: code, pools, the heap's first growth
      const rss = [residentBytes(pid)];
      let failures = 0;
      let stale = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const outcome = await churn(target, CHURN_ROUND);
        failures += outcome.failures;
        stale += outcome.stale;
        rss.push(residentBytes(pid));
      }
      const count = ROUNDS * CHURN_ROUND;
      const judged = judgeChurn(count, failures, stale);
      const sizes = rss.filter((bytes): bytes is number => bytes !== undefined);
      if (judged.status === 'fail' || sizes.length !== rss.length) return judged;
      const trend = `RSS ${sizes.map(mb).join(' → ')} MB`;
      // A leak grows by as much in every round; a heap that settles, or is collected, does not.
      const growths = sizes.slice(1).map((bytes, i) => (bytes - sizes[i]!) / CHURN_ROUND);
      const judgedGrowths = growths.slice(-JUDGED_ROUNDS);
      if (judgedGrowths.every((perSession) => perSession > LEAK_BYTES)) {
        const least = Math.round(Math.min(...judgedGrowths) / 1024);
        return {
          status: 'fail',
          observed: `${judged.observed}, but the server's ${trend}: it kept at least ${least} KB per deleted session in each of the last ${JUDGED_ROUNDS} rounds`,
        };
      }
      return { status: 'pass', observed: `${judged.observed}; ${trend}` };
    },
  },
];
