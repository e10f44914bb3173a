/**
 * `keel doctor`'s checks of the 2026-07-28 era over HTTP (issue 29), run where the server answers
 * `server/discover`: every request stands alone (no session), names its version, and carries
 * back the `requestState` the server gave it.
 */
import { MODERN, needTool, notApplicable, type Check } from './check-kit.js';
import { modernRequest, post, type HttpTarget } from './http-peer.js';
import { minimalArguments, type ListedTool } from './tool-picker.js';

const NOT_MODERN = notApplicable('the server does not offer 2026-07-28');

/** What doctor answers to each kind of input a server asks for (the same in every round). */
function answerFor(request: unknown): unknown {
  const method = (request as { method?: unknown } | undefined)?.method;
  if (method === 'sampling/createMessage')
    return {
      role: 'assistant',
      content: { type: 'text', text: 'keel doctor' },
      model: 'keel-doctor',
      stopReason: 'endTurn',
    };
  if (method === 'elicitation/create') return { action: 'decline' };
  if (method === 'roots/list') return { roots: [] };
  return {};
}

/** One round of a 2026-07-28 tool call: its error, or its result. */
type Round =
  | { error: string }
  | { done: true }
  | { done: false; keys: string[]; state: string | undefined; inputRequests: Record<string, unknown> };

async function callRound(
  target: HttpTarget,
  tool: ListedTool,
  more: { inputResponses?: Record<string, unknown>; requestState?: string } = {},
): Promise<Round> {
  const request = modernRequest(
    'tools/call',
    MODERN,
    { name: tool.name, arguments: minimalArguments(tool, target.args), ...more },
    { sampling: {}, elicitation: {}, roots: {} },
  );
  const answer = await post(target, request.body, request.headers);
  const message = answer.messages.find((m) => m.result !== undefined || m.error !== undefined);
  if (!message)
    return {
      error: answer.status >= 400 ? `HTTP ${answer.status}` : `no answer (HTTP ${answer.status})`,
    };
  if (message.error !== undefined) {
    const error = message.error as { code?: unknown; message?: unknown };
    return { error: `${String(error.code)} ${String(error.message)}` };
  }
  const result = message.result as {
    resultType?: unknown;
    inputRequests?: Record<string, unknown>;
    requestState?: unknown;
  };
  if (result.resultType !== 'input_required') return { done: true };
  const inputRequests = result.inputRequests ?? {};
  return {
    done: false,
    keys: Object.keys(inputRequests).sort(),
    state: typeof result.requestState === 'string' ? result.requestState : undefined,
    inputRequests,
  };
}

/** `state` with one character in its middle changed (kept in the same alphabet). */
function tamper(state: string): string {
  const at = Math.floor(state.length / 2);
  const char = state[at]!;
  const swapped = /[0-9]/.test(char) ? (char === '0' ? '1' : '0') : char === 'A' ? 'B' : 'A';
  return state.slice(0, at) + swapped + state.slice(at + 1);
}

export const MODERN_CHECKS: Check<HttpTarget>[] = [
  {
    id: 'modern.discover',
    title: 'server/discover (2026-07-28)',
    why: 'A 2026-07-28 client learns the versions and capabilities there, without a handshake.',
    ref: 'spec 2026-07-28 basic/lifecycle (server/discover)',
    run: async (target) => {
      if (!target.modern) return NOT_MODERN;
      return { status: 'pass', observed: 'answered with its versions and capabilities' };
    },
  },
  {
    id: 'modern.version-check',
    title: 'a request naming an unsupported version',
    why: 'Each 2026-07-28 request names its version; one the server does not speak must be refused, not misread.',
    ref: 'spec 2026-07-28 basic/transports (MCP-Protocol-Version: 400 for an unsupported version)',
    run: async (target) => {
      if (!target.modern) return NOT_MODERN;
      const request = modernRequest('tools/list', '2099-01-01');
      const answer = await post(target, request.body, request.headers);
      if (answer.status === 400 || answer.messages.some((m) => m.error !== undefined))
        return { status: 'pass', observed: `refused (${answer.status})` };
      return { status: 'fail', observed: `answered ${answer.status} with a result for version 2099-01-01` };
    },
  },
  {
    id: 'modern.request-state-tampered',
    title: 'a tampered requestState (2026-07-28)',
    why: 'The client carries requestState back; a server that trusts a changed one lets any client skip or forge the answers a tool asked for.',
    ref: 'spec 2026-07-28 (multi round-trip requests: servers treat requestState as attacker-controlled and integrity-protect it)',
    run: async (target) => {
      if (!target.modern) return NOT_MODERN;
      const asking = needTool(target, 'asking');
      if ('status' in asking) return asking;
      const first = await callRound(target, asking);
      if ('error' in first) return notApplicable(`"${asking.name}" failed in 2026-07-28: ${first.error}`);
      if (first.done) return notApplicable(`"${asking.name}" asked for no input in 2026-07-28`);
      if (first.state === undefined)
        return notApplicable(
          `"${asking.name}" asked for input without a requestState (nothing to tamper with)`,
        );
      const inputResponses = Object.fromEntries(
        Object.entries(first.inputRequests).map(([key, request]) => [key, answerFor(request)]),
      );
      // The control: the same answers with the state as given must be taken, or a refusal of the
      // tampered one says nothing.
      const honest = await callRound(target, asking, { inputResponses, requestState: first.state });
      if ('error' in honest)
        return notApplicable(
          `doctor's answers were refused even with the untouched requestState: ${honest.error}`,
        );
      const forged = await callRound(target, asking, { inputResponses, requestState: tamper(first.state) });
      if ('error' in forged) return { status: 'pass', observed: `refused: ${forged.error}` };
      if (forged.done)
        return {
          status: 'fail',
          observed: 'accepted a requestState with one character changed, and finished the call',
        };
      const firstAgain = forged.keys.join() === first.keys.join();
      const honestAgain = !honest.done && honest.keys.join() === first.keys.join();
      if (!firstAgain)
        return {
          status: 'fail',
          observed: 'accepted a requestState with one character changed, and went on to the next round',
        };
      if (honestAgain)
        return notApplicable(
          'it asked the first questions again whatever the requestState: nothing to compare',
        );
      return { status: 'pass', observed: 'ignored it and asked the first questions again' };
    },
  },
];
