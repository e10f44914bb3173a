/**
 * What every `keel doctor` check shares (issue 29): the protocol versions it speaks, the shape of
 * a check and of its outcome, and how a check finds the tool it needs or says why it cannot run.
 */
import type { CheckStatus } from './report.js';
import { minimalArguments, type ListedTool, type ToolPicks } from './tool-picker.js';

/** The handshake era doctor speaks (stdio, and HTTP sessions). */
export const LEGACY = '2025-11-25';
/** The sessionless era, checked where the server offers it (`server/discover`). */
export const MODERN = '2026-07-28';
/** Who doctor says it is. */
export const DOCTOR_INFO = { name: 'keel-doctor', version: '0.1.0' } as const;

/**
 * Doctor's `initialize`: the legacy era, as a client that could answer sampling and elicitation
 * (so servers send them, and the checks can see what happens to them).
 *
 * @example
 * peer.send(initializeRequest(1));
 */
export function initializeRequest(id: number): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: LEGACY,
      capabilities: { sampling: {}, elicitation: {} },
      clientInfo: DOCTOR_INFO,
    },
  };
}

/**
 * What one check saw.
 *
 * @example
 * const outcome: Outcome = { status: 'pass', observed: 'exited 0 after 12 ms' };
 */
export interface Outcome {
  status: CheckStatus;
  observed: string;
}

/**
 * A check: its id, the words for the report, and what it does against `Target`.
 *
 * @example
 * const check: Check<HttpTarget> = { id: 'http.origin', title, why, ref, run: async (target) => outcome };
 */
export interface Check<Target> {
  id: string;
  title: string;
  /** Why it matters to someone using the server. */
  why: string;
  /** The spec text or lifecycle guarantee it rests on. */
  ref: string;
  run(target: Target): Promise<Outcome>;
}

/** The kinds of tool a check may need (see tool-picker.ts). */
export type ToolKind = 'slow' | 'asking' | 'fast';

/** What every target says about tool calls. */
export interface ToolTarget {
  readonly readOnly: boolean;
  readonly picks: ToolPicks;
  /** `--args`: the arguments of every tool doctor calls (else the least each schema accepts). */
  readonly args: Record<string, unknown> | undefined;
}

/**
 * A `tools/call` of `tool` with the arguments doctor gives it (a slow tool is asked to be slow),
 * and a progress token when the check wants events before the answer.
 *
 * @example
 * peer.send(toolCallRequest(7, target.picks.slow!, target, 'doctor-7'));
 */
export function toolCallRequest(
  id: number,
  tool: ListedTool,
  target: ToolTarget,
  progressToken?: string,
): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: tool.name,
      arguments: minimalArguments(tool, target.args, tool === target.picks.slow),
      ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
    },
  };
}

const HINT: Record<ToolKind, string> = {
  slow: 'no tool that runs for a while was found (give one with --slow-tool)',
  asking: 'no tool that asks the client for input was found (give one with --sampling-tool or --elicit-tool)',
  fast: 'no tool to call was found (give one with --tool)',
};

/** A check that does not apply, and why. */
export const notApplicable = (observed: string): Outcome => ({ status: 'n/a', observed });

/** Checks that call tools, under `--read-only`. */
export const READ_ONLY = notApplicable('not run: --read-only (no tool calls)');

/** A check that can call any tool, when the server lists none doctor can call. */
export const NO_TOOL = notApplicable(HINT.fast);

/**
 * The tool of `kind` a check calls, or why the check does not apply (`--read-only`, none found).
 *
 * @example
 * const slow = needTool(target, 'slow');
 * if ('status' in slow) return slow;
 */
export function needTool(target: ToolTarget, kind: ToolKind): ListedTool | Outcome {
  if (target.readOnly) return READ_ONLY;
  return target.picks[kind] ?? notApplicable(HINT[kind]);
}
