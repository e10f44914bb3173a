/**
 * docs/server.md snippets: per-caller views (`visibleTo`) and tool-name warnings. Each `#region`
 * is copied verbatim into the block after its `<!-- snippet: name -->` marker (`node
 * test/docs/readme-blocks.mjs --write`); test/docs/readme-sync.test.ts fails when they differ. The
 * functions are typechecked with the project and run by test/views/docs-snippets.test.ts.
 */
import { McpServer, type ViewCaller } from 'keel-mcp/server';

/** A stand-in for the user code the snippets call. */
export const purgeCaches = async (): Promise<string> => 'purged';

export function views(server: McpServer): void {
  // #region views
  // By scope: only tokens granting `admin` see it; to everyone else it does not exist.
  server.tool('purge', { description: 'Purge caches', visibleTo: { scopes: ['admin'] } }, purgeCaches);

  // By principal: a token's subject (`sub`) or the OAuth client it was issued to.
  server.prompt(
    'triage',
    { description: 'On-call triage', visibleTo: { subjects: ['alice'] } },
    () => 'Triage',
  );
  server.resource('ops-log', 'ops://log', { visibleTo: { clientIds: ['ops-console'] } }, () => '...');

  // By predicate: anything the caller shows (auth, session, era, the request's _meta).
  const beta = server.resourceTemplate(
    'beta-report',
    'reports://{id}',
    { visibleTo: (caller: ViewCaller) => caller.auth?.claims?.beta === true },
    (_uri, { id }) => `Report ${String(id)}`,
  );

  // Like `scopes`, changed with update(); the callers whose view changed hear list_changed.
  beta.update({ visibleTo: undefined }); // now visible to everyone
  // #endregion
}

export function toolNameWarnings(log: { warn(message: string): void }): McpServer {
  // #region tool-names
  const server = new McpServer(
    { name: 'docs', version: '1.0.0' },
    { onToolNameWarning: (warning) => log.warn(warning.message) }, // default: console.warn
  );
  server.tool('get weather', { description: 'A space' }, () => 'sunny'); // registered, warned once
  // #endregion
  return server;
}
