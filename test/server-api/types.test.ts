/**
 * Compile-time checks: handler types follow the schemas end to end.
 */
import { type } from 'arktype';
import { describe, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { McpServer } from 'keel-mcp/server';

describe('types follow schemas', () => {
  test('tool args, structured returns, prompt args and elicitation content', () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.tool(
      'zod',
      {
        description: 'Z',
        input: z.object({ city: z.string(), days: z.number().default(1) }),
        output: z.object({ t: z.number() }),
      },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days: number }>();
        return { t: 1 };
      },
    );
    server.tool('ark', { description: 'A', input: type({ n: 'number' }) }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ n: number }>();
      return 'ok';
    });
    server.tool('raw', { description: 'R', input: { type: 'object' } }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ [key: string]: unknown }>();
      return 'ok';
    });
    // @ts-expect-error: the structured return must match the output schema
    server.tool('bad', { description: 'B', output: z.object({ t: z.number() }) }, () => ({ t: 'x' }));
    // @ts-expect-error: without an output schema, a bare object is not a valid return
    server.tool('bad2', { description: 'B' }, () => ({ t: 1 }));
    server.prompt('p', { description: 'P', args: z.object({ who: z.string() }) }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ who: string }>();
      return 'x';
    });
    server.tool('ask', { description: 'Ask' }, async (_a, ctx) => {
      const answer = await ctx.elicit({ message: 'm', schema: z.object({ unit: z.enum(['C', 'F']) }) });
      if (answer.action === 'accept') expectTypeOf(answer.content).toEqualTypeOf<{ unit: 'C' | 'F' }>();
      return 'ok';
    });
  });
});
