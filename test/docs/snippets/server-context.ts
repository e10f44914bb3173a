/**
 * docs/server.md snippets: the handler context. See server-tools.ts for how the regions are used.
 */
import { z } from 'zod';
import { CancelledByPeerError, ContextClosedError, samplingText } from 'keel-mcp/core';
import type { McpServer, ToolContext } from 'keel-mcp/server';

/** Stand-ins for the user code the snippets call. */
export const importPhoto = async (_folder: string, _index: number, _signal: AbortSignal): Promise<void> => {};
export const cleanUp = (): void => {};
export const saved: { ctx?: ToolContext } = {};

export function contextBasics(server: McpServer): void {
  // #region context-basics
  server.tool(
    'import-photos',
    { description: 'Import photos', input: z.object({ folder: z.string() }) },
    async ({ folder }, ctx) => {
      try {
        for (let i = 1; i <= 10; i++) {
          await importPhoto(folder, i, ctx.signal); // pass the signal on to fetch, streams, ...
          await ctx.progress(i, 10, `photo ${i}`); // sent only if the caller asked for progress
        }
        await ctx.log('info', `imported 10 photos from ${folder}`); // on this request's stream
        return 'done';
      } finally {
        // Runs at once on cancel, stdin EOF, session DELETE or expiry, or shutdown.
        if (ctx.signal.aborted) {
          const why = ctx.signal.reason instanceof CancelledByPeerError ? 'cancelled' : 'connection gone';
          console.error(`import stopped: ${why}`); // ConnectionClosedError means teardown
          cleanUp();
        }
      }
    },
  );
  // #endregion
}

export function contextBackChannel(server: McpServer): void {
  // #region context-back-channel
  server.tool('organize', { description: 'Organize files' }, async (_args, ctx) => {
    const { roots } = await ctx.listRoots(); // roots/list

    const answer = await ctx.elicit({
      message: 'How should I sort?',
      schema: z.object({ by: z.enum(['date', 'name']), dryRun: z.boolean().default(true) }),
    });
    if (answer.action !== 'accept') return 'Nothing done'; // 'decline' or 'cancel'
    const { by, dryRun } = answer.content; // typed by the schema and validated

    const plan = await ctx.createMessage(
      {
        messages: [
          { role: 'user', content: { type: 'text', text: `Plan: sort ${roots.length} roots by ${by}` } },
        ],
        maxTokens: 200,
      },
      { timeoutMs: 60_000 }, // every back-channel call also follows ctx.signal
    );
    // content is one block or (2025-11-25+) an array: samplingText joins its text blocks
    return `${dryRun ? '[dry run] ' : ''}${samplingText(plan)}`;
  });

  server.tool('connect-calendar', { description: 'Connect a calendar account' }, async (_args, ctx) => {
    const outcome = await ctx.elicitUrl({ message: 'Sign in', url: 'https://example.com/oauth/start' });
    if (outcome.action !== 'accept') return 'Not connected';
    // ...when the out-of-band flow has finished:
    await outcome.complete(); // notifications/elicitation/complete
    return 'Connected';
  });
  // #endregion
}

export function contextFacts(server: McpServer): void {
  // #region context-facts
  server.tool('whoami', { description: 'Who is calling' }, (_args, ctx) =>
    JSON.stringify({
      requestId: ctx.requestId,
      sessionId: ctx.sessionId, // HTTP session, if any
      client: ctx.clientInfo?.name,
      canSample: ctx.clientCapabilities.sampling !== undefined,
      meta: ctx.meta, // the request's _meta
      userAgent: ctx.info?.headers?.get('user-agent'), // HTTP request headers
      auth: ctx.info?.authInfo, // what your auth middleware attached
    }),
  );
  // #endregion
}

export function contextAfterEnd(server: McpServer): void {
  // #region context-after-end
  server.tool('leaky', { description: 'Keeps its context (do not do this)' }, (_args, ctx) => {
    saved.ctx = ctx;
    return 'ok';
  });
  // Later, after the response was sent:
  //   await saved.ctx.listRoots()   → rejects with ContextClosedError
  //   await saved.ctx.progress(1)   → dropped silently (so are log() notifications)
  // #endregion
}

/** Used by the snippet test: what a dead context does. */
export async function useSavedContext(): Promise<unknown> {
  return saved.ctx?.listRoots().then(
    () => 'resolved',
    (error: unknown) => (error instanceof ContextClosedError ? 'ContextClosedError' : error),
  );
}
