/**
 * docs/server.md snippets: tools. Each `#region` is copied verbatim (dedented) into the block after
 * its `<!-- snippet: name -->` marker in README.md or docs/*.md (`node test/docs/readme-blocks.mjs
 * --write`), and test/docs/readme-sync.test.ts fails when the two differ. The functions are typechecked with the
 * rest of the project and run by test/docs/readme-snippets.test.ts.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { McpError, ErrorCode } from 'keel-mcp/core';
import { toolError, type McpServer } from 'keel-mcp/server';

/** Stand-ins for the user code the snippets call. */
export const findDocs = async (query: string): Promise<{ title: string; url: string }[]> => [
  { title: `About ${query}`, url: `https://example.com/docs/${encodeURIComponent(query)}` },
];
export const chartPng = async (): Promise<string> => 'iVBORw0KGgo=';

export function toolWithZod(server: McpServer): void {
  // #region tool-zod
  server.tool(
    'search',
    {
      title: 'Search the docs',
      description: 'Full-text search over the documentation',
      input: z.object({ query: z.string().min(2), limit: z.number().int().max(50).default(10) }),
      output: z.object({ hits: z.array(z.object({ title: z.string(), url: z.string() })) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      icons: [{ src: 'https://example.com/search.svg', mimeType: 'image/svg+xml', sizes: ['any'] }],
      _meta: { 'example.com/team': 'docs' },
    },
    // `query` and `limit` are typed (and validated, defaults applied) from the input schema.
    async ({ query, limit }) => ({ hits: (await findDocs(query)).slice(0, limit) }),
  );
  // #endregion
}

export function toolsWithOtherSchemas(server: McpServer): void {
  // #region tool-schemas
  // valibot: wrap the schema with toStandardJsonSchema() from @valibot/to-json-schema
  server.tool(
    'greet',
    { description: 'Greet someone', input: toStandardJsonSchema(v.object({ name: v.string() })) },
    ({ name }) => `Hello, ${name}!`,
  );

  // arktype: implements Standard JSON Schema itself
  server.tool('double', { description: 'Double a number', input: type({ n: 'number' }) }, ({ n }) =>
    String(n * 2),
  );

  // raw JSON Schema (2020-12 unless `$schema` says draft-07 or 2019-09): advertised exactly as
  // given, validated with @cfworker/json-schema; the handler gets a plain object
  server.tool(
    'echo',
    {
      description: 'Echo a message',
      input: {
        type: 'object',
        properties: { message: { type: 'string', maxLength: 1000 } },
        required: ['message'],
        additionalProperties: false,
      },
    },
    (args) => JSON.stringify(args.message),
  );
  // #endregion
}

export function toolResults(server: McpServer): void {
  // #region tool-results
  // A full CallToolResult: any content blocks (text, image, audio, resource_link, resource).
  server.tool('report', { description: 'Weather report with a chart' }, async () => ({
    content: [
      { type: 'text', text: 'Sunny, 21 °C' },
      { type: 'image', data: await chartPng(), mimeType: 'image/png' },
      { type: 'resource_link', uri: 'weather://about', name: 'about' },
    ],
  }));

  server.tool(
    'divide',
    { description: 'a / b', input: z.object({ a: z.number(), b: z.number() }) },
    ({ a, b }) => {
      if (b === 0) return toolError('Cannot divide by zero'); // isError: true; the model reads it
      if (a < 0) throw new Error('Only non-negative numbers, please'); // also isError: true
      return String(a / b); // one text block
    },
  );

  server.tool('pay', { description: 'Pay an invoice' }, () => {
    // The one error a handler throws that stays a JSON-RPC error (2025-11-25):
    throw new McpError(ErrorCode.UrlElicitationRequired, 'Authorize the payment first', {
      elicitations: [
        { mode: 'url', elicitationId: 'pay-1', url: 'https://example.com/pay', message: 'Authorize' },
      ],
    });
  });
  // #endregion
}

export function toolHandles(server: McpServer): void {
  // #region tool-handles
  const beta = server.tool('beta-search', { description: 'Experimental search' }, () => 'results');
  beta.disable(); // hidden from tools/list; a call fails like an unknown tool
  beta.enable();
  beta.update({ description: 'Search (stable)', annotations: { readOnlyHint: true } });
  beta.remove(); // gone; the name can be registered again
  // Each change sends notifications/tools/list_changed to connected clients (one per tick).
  // #endregion
}
