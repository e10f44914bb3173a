/**
 * docs/server.md snippets: resources, templates, subscriptions, prompts, logging, pagination. See
 * server-tools.ts for how the regions are used.
 */
import { z } from 'zod';
import { McpServer, resourceNotFound } from 'keel-mcp/server';

/** Stand-ins for the user code the snippets call. */
export const LOGO_BASE64 = 'iVBORw0KGgo=';
export const userIds = (): string[] => ['ada', 'alan', 'grace'];
const saveListeners: (() => void)[] = [];
export const onReadmeSaved = (listener: () => void): void => void saveListeners.push(listener);
export const saveReadme = (): void => saveListeners.forEach((listener) => listener());

export function resources(server: McpServer): void {
  // #region resources
  server.resource(
    'readme',
    'file:///project/README.md',
    { title: 'README', mimeType: 'text/markdown', annotations: { audience: ['user'], priority: 0.9 } },
    () => '# My project', // a string is one text item with the resource's mimeType
  );

  server.resource('logo', 'file:///project/logo.png', { mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri, mimeType: 'image/png', blob: LOGO_BASE64 }],
  }));
  // #endregion
}

export function templates(server: McpServer): void {
  // #region templates
  server.resourceTemplate(
    'user',
    'users://{id}/profile', // RFC 6570: {var}, {+path}, {/segments*}, {?query,params}, ...
    { description: 'A user profile', mimeType: 'application/json' },
    (uri, { id }) => {
      if (!userIds().includes(String(id))) throw resourceNotFound(uri); // as for an unknown URI
      return JSON.stringify({ uri, id });
    },
    {
      // completion/complete for the `id` variable
      complete: { id: (value) => userIds().filter((id) => id.startsWith(value)) },
      // concrete resources to show in resources/list
      list: () => userIds().map((id) => ({ uri: `users://${id}/profile`, name: id })),
    },
  );
  // #endregion
}

export function subscriptions(server: McpServer): void {
  // #region subscriptions
  // Clients subscribe with resources/subscribe; tell the subscribed sessions about a change:
  onReadmeSaved(() => void server.notifyResourceUpdated('file:///project/README.md'));
  // (inside a handler: await ctx.notifyResourceUpdated(uri))
  // #endregion
}

export function prompts(server: McpServer): void {
  // #region prompts
  server.prompt(
    'code-review',
    {
      title: 'Code review',
      description: 'Review a piece of code',
      args: z.object({ language: z.string(), code: z.string().describe('The code to review') }),
      complete: { language: (value) => ['go', 'python', 'rust'].filter((l) => l.startsWith(value)) },
    },
    ({ language, code }) => [
      { role: 'user', content: { type: 'text', text: `Review this ${language} code:\n${code}` } },
    ],
  );

  // Arguments as a plain list: values arrive as strings, required ones are checked.
  server.prompt(
    'greet',
    { description: 'Greet someone', args: [{ name: 'who', description: 'Whom to greet', required: true }] },
    ({ who }) => `Say hello to ${who ?? 'everyone'}`, // a string is one user message
  );
  // #endregion
}

export function completionContext(server: McpServer): void {
  // #region completion-context
  server.prompt(
    'trip',
    {
      description: 'Plan a trip',
      args: [{ name: 'country' }, { name: 'city' }],
      complete: {
        // `context.arguments` holds the values the user already chose
        city: (value, context) =>
          (context.arguments.country === 'NO' ? ['Oslo', 'Bergen'] : ['Paris', 'Lyon']).filter((c) =>
            c.startsWith(value),
          ),
      },
    },
    ({ country, city }) => `Plan a trip to ${city ?? '?'}, ${country ?? '?'}`,
  );
  // #endregion
}

export function serverOptions(): McpServer {
  // #region server-options
  const server = new McpServer(
    { name: 'docs', version: '1.0.0', title: 'Docs server', websiteUrl: 'https://example.com' },
    {
      instructions: 'Search before you read.', // sent in the initialize result
      pageSize: 50, // items per page of every list method (default 100; 0 = no pagination)
      defaultLogLevel: 'info', // minimum level for sessions that never sent logging/setLevel
      capabilities: { experimental: { 'example.com/tracing': {} } }, // merged with the derived ones
      connection: { requestDefaults: { timeoutMs: 30_000 } }, // engine options of every session
    },
  );
  // #endregion
  return server;
}

export async function serverLogging(server: McpServer): Promise<void> {
  // #region server-logging
  // To every session whose level (logging/setLevel, else defaultLogLevel) lets it through:
  await server.log('warning', { disk: '95% full' }, 'storage');
  // #endregion
}
