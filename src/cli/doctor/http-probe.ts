/**
 * `keel doctor`'s first contact with an HTTP server (issue 29): the handshake (fatal when it
 * fails), whether it keeps sessions, whether it speaks 2026-07-28, and its tools.
 */
import { LEGACY, MODERN } from './check-kit.js';
import {
  closeSession,
  initialize,
  modernRequest,
  nextRequestId,
  post,
  type Answer,
  type HttpTarget,
} from './http-peer.js';
import { pickTools, type ListedTool, type ToolHints, type ToolPicks } from './tool-picker.js';

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
    answer = await post(target, initialize(nextRequestId()));
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
  const sessionHeaders: Record<string, string> = { 'mcp-protocol-version': LEGACY };
  if (session) sessionHeaders['mcp-session-id'] = session;
  await post(
    target,
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    sessionHeaders,
  ).catch(() => undefined);
  const listed = await post(
    target,
    JSON.stringify({ jsonrpc: '2.0', id: nextRequestId(), method: 'tools/list' }),
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
