// The MCP server every runtime smoke serves: the same tools on Node, Bun, Deno and workerd. It
// imports only the web-standard parts of the BUILT package (dist), never `keel-mcp/node`, so what
// runs here is what a user of that runtime would run. McpServer comes from the root entry
// (`keel-mcp`), which must load on every runtime (it holds the client too, and no `node:` import).
import { McpServer } from '../../../dist/pkg/index.js';
import { createHttpHandler } from '../../../dist/pkg/http.js';

const NO_ARGS = { type: 'object', properties: {} };
const ASK_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/**
 * A fresh server and what its `wait` tool saw. `wait` runs until its signal aborts and records
 * the abort's reason; `was_aborted` reports that record, so a client can learn from a second call
 * that its disconnect reached the first handler. The record is per process (per isolate on
 * workerd): enough for one smoke run, which is the only user. The resource template `item` is
 * there because registering and matching one must work everywhere (workerd refuses the code
 * generation some URI template libraries do).
 *
 * @example
 * const { server } = createSmokeServer('bun');
 */
export function createSmokeServer(runtime) {
  const aborted = [];
  const server = new McpServer({ name: `keel-runtime-smoke-${runtime}`, version: '1.0.0' });

  server.tool(
    'echo',
    {
      description: 'Says which runtime answered',
      input: { type: 'object', properties: { text: { type: 'string' } } },
    },
    ({ text }) => `${runtime}: ${text ?? ''}`,
  );

  server.tool(
    'count',
    { description: 'Three progress steps, then done', input: NO_ARGS },
    async (_args, ctx) => {
      for (let step = 1; step <= 3; step += 1) await ctx.progress(step, 3, `step ${step}`);
      return 'counted 3';
    },
  );

  server.tool('ask', { description: 'Asks the user for a name', input: NO_ARGS }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', schema: ASK_SCHEMA });
    return answer.action === 'accept' ? `hello ${answer.content.name}` : `no answer (${answer.action})`;
  });

  server.tool(
    'wait',
    {
      description: 'Waits until aborted',
      input: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
    },
    async ({ tag }, ctx) => {
      // The first progress tells the client the handler runs, so its abort is known to hit one.
      await ctx.progress(0, 1, 'waiting');
      return new Promise((_resolve, reject) => {
        const onAbort = () => {
          const reason = ctx.signal.reason;
          aborted.push({ tag, reason: reason instanceof Error ? reason.name : String(reason) });
          reject(reason);
        };
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  );

  server.tool(
    'was_aborted',
    {
      description: 'How the wait call with this tag ended',
      input: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
    },
    ({ tag }) => {
      const entry = aborted.find((item) => item.tag === tag);
      return entry ? `aborted: ${entry.reason}` : 'not aborted';
    },
  );

  server.resourceTemplate(
    'item',
    'smoke://items/{id}{?lang}',
    { description: 'An item by id', mimeType: 'text/plain' },
    (_uri, { id, lang }) => `item ${id}${lang ? ` (${lang})` : ''}`,
  );

  return { server };
}

/**
 * The web handler (`Request` → `Response`) for one runtime's smoke server.
 *
 * @example
 * Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createSmokeHandler('bun') });
 */
export function createSmokeHandler(runtime, options = {}) {
  const { server } = createSmokeServer(runtime);
  return createHttpHandler(server, options);
}
