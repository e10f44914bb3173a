/**
 * `keel doctor`'s stdio checks (issue 29): each starts the server afresh, does the handshake by
 * hand, provokes one ending or one bad input, and reports what the server did. Built from
 * docs/lifecycle.md and the spec's stdio transport; the server is a stranger in any language.
 */
import {
  initializeRequest,
  needTool,
  NO_TOOL,
  READ_ONLY,
  toolCallRequest,
  type Check,
  type Outcome,
  type ToolTarget,
} from './check-kit.js';
import type { CheckResult } from './report.js';
import { StdioPeer } from './stdio-peer.js';
import {
  minimalArguments,
  pickTools,
  type ListedTool,
  type ToolHints,
  type ToolPicks,
} from './tool-picker.js';

/** An exit this long after stdin's EOF is "prompt". */
const PROMPT_EXIT_MS = 2_000;

/** What every check gets. */
export interface StdioTarget extends ToolTarget {
  readonly command: readonly string[];
  readonly timeoutMs: number;
}

/** A stdio check: its id, words for the report, and what it does. */
export type StdioCheck = Check<StdioTarget>;

/** What the handshake gave, or why it failed (fatal for the whole run). */
export interface Handshake {
  result?: Record<string, unknown>;
  error?: string;
}

let nextId = 100;
const id = (): number => ++nextId;

/** initialize + initialized, by hand, within `ms`. */
export async function handshake(peer: StdioPeer, ms: number): Promise<Handshake> {
  const requestId = id();
  peer.send(initializeRequest(requestId));
  const answer = await peer.waitFor((m) => m.id === requestId, ms);
  if (peer.failedToSpawn) return { error: `could not start the command: ${peer.failedToSpawn.message}` };
  if (!answer) {
    if (peer.exit)
      return {
        error: `the server exited (${describeExit(peer)}) before answering initialize${stderrTail(peer)}`,
      };
    const junk = peer.lines.find((line) => !line.message);
    if (junk)
      return {
        error: `the server wrote text that is not JSON-RPC on stdout: ${JSON.stringify(junk.text.slice(0, 120))}`,
      };
    return { error: `no answer to initialize within ${ms} ms (is this an MCP server speaking stdio?)` };
  }
  if (answer.error) return { error: `initialize was refused: ${JSON.stringify(answer.error).slice(0, 200)}` };
  const result = answer.result as Record<string, unknown> | undefined;
  if (!result || typeof result.protocolVersion !== 'string')
    return {
      error: `initialize answered without a protocolVersion: ${JSON.stringify(answer).slice(0, 200)}`,
    };
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { result };
}

export function describeExit(peer: StdioPeer): string {
  const exit = peer.exit;
  if (!exit) return 'still running';
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function stderrTail(peer: StdioPeer): string {
  const tail = peer.stderr.trim().split('\n').slice(-3).join(' | ');
  return tail ? `; stderr: ${tail.slice(0, 300)}` : '';
}

/** Start, shake hands, run `body`, always dispose. */
async function withPeer(target: StdioTarget, body: (peer: StdioPeer) => Promise<Outcome>): Promise<Outcome> {
  const peer = StdioPeer.start(target.command);
  try {
    const shake = await handshake(peer, target.timeoutMs);
    if (shake.error) return { status: 'fail', observed: `the handshake failed this time: ${shake.error}` };
    return await body(peer);
  } finally {
    await peer.dispose();
  }
}

function callTool(peer: StdioPeer, tool: ListedTool, target: StdioTarget, progressToken?: string): number {
  const requestId = id();
  peer.send(toolCallRequest(requestId, tool, target, progressToken));
  return requestId;
}

/** Still serving: a ping is answered within the timeout. */
async function stillServing(peer: StdioPeer, target: StdioTarget): Promise<boolean> {
  const pingId = id();
  const from = peer.lines.length;
  if (!peer.send({ jsonrpc: '2.0', id: pingId, method: 'ping' })) return false;
  return (await peer.waitFor((m) => m.id === pingId, target.timeoutMs, from)) !== undefined;
}

/** EOF, then: prompt exit with code 0 and nothing written after it? */
async function judgeEof(peer: StdioPeer, what: string): Promise<Outcome> {
  const before = peer.lines.length;
  peer.endInput();
  const exited = await peer.waitExit(PROMPT_EXIT_MS);
  const after = peer.lines.slice(before).filter((line) => line.at >= (peer.eofAt ?? 0));
  if (!exited)
    return {
      status: 'fail',
      observed: `still running ${PROMPT_EXIT_MS} ms after stdin reached EOF ${what} (a client that quits leaves this process behind)`,
    };
  const waited = peer.exit!.at - peer.eofAt!;
  if (peer.exit!.code !== 0)
    return {
      status: 'fail',
      observed: `exited with ${describeExit(peer)} ${waited} ms after EOF ${what}${stderrTail(peer)}`,
    };
  if (after.length > 0)
    return {
      status: 'fail',
      observed: `exited 0 after ${waited} ms, but wrote ${after.length} line(s) after EOF ${what}: ${JSON.stringify(after[0]!.text.slice(0, 100))}`,
    };
  return { status: 'pass', observed: `exited 0, ${waited} ms after EOF ${what}, writing nothing after it` };
}

export const STDIO_CHECKS: StdioCheck[] = [
  {
    id: 'stdio.stdout-clean',
    title: 'stdout carries only JSON-RPC',
    why: 'Clients parse every stdout line as a message: a log line there is a protocol error, and some clients drop the connection.',
    ref: 'spec basic/transports#stdio: "The server MUST NOT write anything to its stdout that is not a valid MCP message"',
    run: (target) =>
      withPeer(target, async (peer) => {
        const listId = id();
        peer.send({ jsonrpc: '2.0', id: listId, method: 'tools/list' });
        await peer.waitFor((m) => m.id === listId, target.timeoutMs);
        if (!target.readOnly && target.picks.fast) {
          const callId = callTool(peer, target.picks.fast, target);
          await peer.waitFor((m) => m.id === callId, target.timeoutMs);
        }
        const junk = peer.lines.filter((line) => !line.message || line.message.jsonrpc !== '2.0');
        return junk.length === 0
          ? { status: 'pass', observed: `${peer.lines.length} lines, every one a JSON-RPC message` }
          : {
              status: 'fail',
              observed: `${junk.length} line(s) that are not JSON-RPC, e.g. ${JSON.stringify(junk[0]!.text.slice(0, 100))}`,
            };
      }),
  },
  {
    id: 'stdio.eof-idle',
    title: 'stdin EOF while idle',
    why: 'An editor that closes ends stdin; a server that keeps running is a process left behind on every restart.',
    ref: 'spec basic/transports#stdio (shutdown: the client closes stdin, then waits for the server to exit); lifecycle.md G1',
    run: (target) => withPeer(target, (peer) => judgeEof(peer, 'while idle')),
  },
  {
    id: 'stdio.eof-during-call',
    title: 'stdin EOF while a tool runs',
    why: 'A client that quits mid-call must not leave the tool running, nor get an answer written into a closed pipe.',
    ref: 'lifecycle.md G1, G3 (a connection that ends aborts its handlers; nothing is written after close)',
    run: async (target) => {
      const slow = needTool(target, 'slow');
      if ('status' in slow) return slow;
      return withPeer(target, async (peer) => {
        callTool(peer, slow, target, 'doctor');
        await peer.pause(300);
        return judgeEof(peer, `while "${slow.name}" ran`);
      });
    },
  },
  {
    id: 'stdio.eof-during-sampling',
    title: 'stdin EOF while a tool waits on the client',
    why: 'The client that would answer is gone: a server that keeps waiting for the answer hangs instead of exiting.',
    ref: 'lifecycle.md G2 (requests to a peer that left fail at once); python-sdk PR #2306',
    run: async (target) => {
      const asking = needTool(target, 'asking');
      if ('status' in asking) return asking;
      return withPeer(target, async (peer) => {
        const from = peer.lines.length;
        callTool(peer, asking, target);
        const request = await peer.waitFor(
          (m) => typeof m.method === 'string' && m.id !== undefined,
          target.timeoutMs,
          from,
        );
        if (!request) return { status: 'n/a', observed: `"${asking.name}" sent the client no request` };
        return judgeEof(peer, `while "${asking.name}" waited on ${String(request.method)}`);
      });
    },
  },
  {
    id: 'stdio.stdout-closed',
    title: 'the client stops reading mid-call',
    why: 'A client that dies closes its end of the pipe: the next write fails with EPIPE, which must not crash the server with an error exit.',
    ref: 'lifecycle.md G3 (a write to a closed connection is dropped, not thrown)',
    run: async (target) => {
      if (target.readOnly) return READ_ONLY;
      const tool = target.picks.slow ?? target.picks.fast;
      if (!tool) return NO_TOOL;
      return withPeer(target, async (peer) => {
        peer.closeOutput();
        callTool(peer, tool, target, 'doctor');
        if (target.picks.fast) callTool(peer, target.picks.fast, target);
        await peer.pause(500);
        if (peer.exit && (peer.exit.code !== 0 || peer.exit.signal))
          return {
            status: 'fail',
            observed: `crashed (${describeExit(peer)}) when its stdout was closed${stderrTail(peer)}`,
          };
        peer.endInput();
        const exited = await peer.waitExit(PROMPT_EXIT_MS);
        if (exited && (peer.exit!.code !== 0 || peer.exit!.signal))
          return {
            status: 'fail',
            observed: `exited with ${describeExit(peer)} after its stdout was closed${stderrTail(peer)}`,
          };
        return exited
          ? { status: 'pass', observed: 'kept going with its stdout closed, then exited 0 on EOF' }
          : {
              status: 'fail',
              observed: `still running ${PROMPT_EXIT_MS} ms after EOF, with its stdout closed`,
            };
      });
    },
  },
  {
    id: 'stdio.cancel-race',
    title: 'a cancel racing a result',
    why: 'Whichever wins, the client must get at most one answer for its request: two answers confuse every client.',
    ref: 'spec basic/utilities/cancellation ("the receiver SHOULD NOT send a response for the cancelled request"); lifecycle.md G6',
    run: async (target) => {
      if (target.readOnly) return READ_ONLY;
      const tools = [target.picks.fast, target.picks.slow].filter((t): t is ListedTool => t !== undefined);
      if (tools.length === 0) return NO_TOOL;
      return withPeer(target, async (peer) => {
        const ids: number[] = [];
        for (const tool of tools) {
          const callId = callTool(peer, tool, target);
          ids.push(callId);
          peer.send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: callId, reason: 'doctor' },
          });
        }
        await peer.pause(Math.min(target.timeoutMs, 3_500));
        for (const [i, callId] of ids.entries()) {
          const answers = peer.messages().filter((m) => m.id === callId && m.method === undefined);
          if (answers.length > 1)
            return {
              status: 'fail',
              observed: `request ${callId} was cancelled at once and got ${answers.length} answers`,
            };
          // A call that runs for a while cannot have finished before the cancel arrived: a result
          // means the cancel was ignored and the handler ran on.
          if (
            tools[i] === target.picks.slow &&
            tools[i] !== target.picks.asking &&
            answers.some((m) => m.result !== undefined)
          )
            return {
              status: 'fail',
              observed: `"${tools[i]!.name}" was cancelled at once but ran to the end and answered with a result`,
            };
        }
        if (!(await stillServing(peer, target)))
          return { status: 'fail', observed: 'stopped answering (ping) after a cancelled request' };
        return { status: 'pass', observed: 'each cancelled request got at most one answer; still serving' };
      });
    },
  },
  {
    id: 'stdio.duplicate-id',
    title: 'a request reusing an id in flight',
    why: 'Two answers with one id cannot be told apart: the client takes one for the other.',
    ref: 'spec basic#requests ("The request ID MUST NOT have been previously used by the requestor within the same session")',
    run: async (target) => {
      const slow = needTool(target, 'slow');
      if ('status' in slow) return slow;
      return withPeer(target, async (peer) => {
        const callId = callTool(peer, slow, target);
        const again = target.picks.fast ?? slow;
        peer.send({
          jsonrpc: '2.0',
          id: callId,
          method: 'tools/call',
          params: { name: again.name, arguments: minimalArguments(again, target.args) },
        });
        await peer.pause(Math.min(target.timeoutMs, 3_500));
        const answers = peer.messages().filter((m) => m.id === callId && m.method === undefined);
        const results = answers.filter((m) => m.result !== undefined);
        if (results.length > 1)
          return {
            status: 'fail',
            observed: `two results for id ${callId}: the duplicate was served as a second request`,
          };
        if (!(await stillServing(peer, target)))
          return { status: 'fail', observed: 'stopped answering (ping) after a duplicate id' };
        const refused = answers.some((m) => m.error !== undefined);
        return {
          status: 'pass',
          observed: refused
            ? 'the duplicate was refused with an error; still serving'
            : 'no second result for the id; still serving',
        };
      });
    },
  },
  {
    id: 'stdio.malformed-line',
    title: 'a line that is not JSON',
    why: 'One bad line (a truncated write, a stray echo) must not end the session.',
    ref: 'JSON-RPC 2.0 §5.1 (-32700 Parse error); lifecycle.md G10',
    run: (target) =>
      withPeer(target, async (peer) => {
        const from = peer.lines.length;
        peer.send('{"jsonrpc": "2.0", "id": 7, "method": ');
        const error = await peer.waitFor(
          (m) => (m.error as { code?: number } | undefined)?.code === -32700,
          1_000,
          from,
        );
        if (!(await stillServing(peer, target)))
          return {
            status: 'fail',
            observed: `stopped serving after a malformed line (${describeExit(peer)})${stderrTail(peer)}`,
          };
        return {
          status: 'pass',
          observed: error ? 'answered -32700 and kept serving' : 'ignored it and kept serving',
        };
      }),
  },
  {
    id: 'stdio.batch',
    title: 'a JSON array (batch)',
    why: 'Batches left the protocol in 2025-06-18; a client of an older revision may still send one, which must not break the session.',
    ref: 'spec changelog 2025-06-18 (JSON-RPC batching removed); JSON-RPC 2.0 §6',
    run: (target) =>
      withPeer(target, async (peer) => {
        const a = id();
        const b = id();
        const from = peer.lines.length;
        peer.send([
          { jsonrpc: '2.0', id: a, method: 'ping' },
          { jsonrpc: '2.0', id: b, method: 'ping' },
        ]);
        const answered = await peer.waitFor(() => true, 1_500, from);
        if (!(await stillServing(peer, target)))
          return { status: 'fail', observed: `stopped serving after a batch (${describeExit(peer)})` };
        if (!answered)
          return {
            status: 'fail',
            observed: 'no answer at all to a batch (the client waits for ever): expected an error',
          };
        return {
          status: 'pass',
          observed: answered.error ? 'refused it with an error; still serving' : 'answered it; still serving',
        };
      }),
  },
  {
    id: 'stdio.oversized',
    title: 'a 4 MiB line',
    why: 'A huge message (a pasted file, a bug) must get a clear error or be skipped, not take the server down.',
    ref: 'lifecycle.md G12 (bounded input)',
    run: (target) =>
      withPeer(target, async (peer) => {
        const bigId = id();
        const from = peer.lines.length;
        peer.send({
          jsonrpc: '2.0',
          id: bigId,
          method: 'ping',
          params: { pad: 'x'.repeat(4 * 1024 * 1024) },
        });
        // Its answer: the ping's result (read whole), or an error for it or for no id (refused).
        const answer = await peer.waitFor(
          (m) => m.id === bigId || (m.id === null && m.error !== undefined),
          1_000,
          from,
        );
        if (!(await stillServing(peer, target)))
          return {
            status: 'fail',
            observed: `stopped serving after a 4 MiB line (${describeExit(peer)})${stderrTail(peer)}`,
          };
        const error = answer?.error as { code?: unknown } | undefined;
        const said =
          answer === undefined
            ? 'said nothing about it'
            : error
              ? `refused it (${String(error.code)})`
              : 'read it whole and answered';
        return { status: 'pass', observed: `${said}; still serving after a 4 MiB line` };
      }),
  },
  {
    id: 'stdio.second-initialize',
    title: 'a second initialize',
    why: 'Renegotiating would change the version and capabilities under running handlers.',
    ref: 'spec basic/lifecycle (initialization happens once per connection)',
    run: (target) =>
      withPeer(target, async (peer) => {
        const again = id();
        peer.send(initializeRequest(again));
        const answer = await peer.waitFor((m) => m.id === again, target.timeoutMs);
        if (!(await stillServing(peer, target)))
          return {
            status: 'fail',
            observed: `stopped serving after a second initialize (${describeExit(peer)})`,
          };
        if (answer?.result !== undefined)
          return { status: 'fail', observed: 'accepted a second initialize as if the session were new' };
        return {
          status: 'pass',
          observed: answer
            ? 'refused it with an error; the session goes on'
            : 'ignored it; the session goes on',
        };
      }),
  },
];

/** The first process: the handshake (fatal when it fails) and the tools doctor may call. */
export async function probeStdio(
  command: readonly string[],
  timeoutMs: number,
  hints: ToolHints,
): Promise<{
  fatal?: string;
  init?: Record<string, unknown> | undefined;
  tools: ListedTool[];
  picks: ToolPicks;
}> {
  const peer = StdioPeer.start(command);
  try {
    const shake = await handshake(peer, timeoutMs);
    if (shake.error) return { fatal: shake.error, tools: [], picks: {} };
    const listId = id();
    peer.send({ jsonrpc: '2.0', id: listId, method: 'tools/list' });
    const listed = await peer.waitFor((m) => m.id === listId, timeoutMs);
    const tools = ((listed?.result as { tools?: ListedTool[] } | undefined)?.tools ?? []).filter(
      (tool) => typeof tool?.name === 'string',
    );
    return { init: shake.result, tools, picks: pickTools(tools, hints) };
  } finally {
    await peer.dispose();
  }
}

export type { CheckResult };
