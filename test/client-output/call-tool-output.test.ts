/**
 * `client.callTool(name, args, { output: schema })`: `structuredContent` validated by the caller's
 * Standard Schema (zod 4, valibot, arktype) and typed by its output, in both eras; a mismatch
 * names the tool and the first issue; a tool error (`isError: true`) is returned unvalidated.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { type } from 'arktype';
import * as v from 'valibot';
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { McpClient, ToolOutputValidationError, type ValidatedCallToolResult } from 'keel-mcp/client';
import type { JsonObject, CallToolResult } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

/** A server whose tool `reply` answers with the result it is given (no outputSchema of its own). */
function replyServer(): McpServer {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool(
    'reply',
    { description: 'answers with args.result', input: { type: 'object' } },
    (args) => (args as { result: CallToolResult }).result,
  );
  return server;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup());
});

async function connect(era: 'legacy' | 'modern'): Promise<McpClient> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = replyServer().connect(serverSide);
  const client = new McpClient({ name: 'c', version: '1' }, { era });
  cleanups.push(async () => {
    await client.close();
    await session.closed;
  });
  await within(client.connect(clientSide));
  expect(client.era).toBe(era);
  return client;
}

const structured = (structuredContent: JsonObject) => ({
  result: { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent },
});

async function rejection(promise: Promise<unknown>): Promise<ToolOutputValidationError> {
  const error = await within(promise).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolOutputValidationError);
  return error as ToolOutputValidationError;
}

const ZodForecast = z.object({ city: z.string(), tempC: z.number(), unit: z.string().default('C') });
const ValibotForecast = v.object({ city: v.string(), tempC: v.number() });

describe.each(['legacy', 'modern'] as const)('callTool with { output } (%s era)', (era) => {
  test('zod: a matching result is typed and is the schema output (defaults applied)', async () => {
    const client = await connect(era);
    const result = await client.callTool('reply', structured({ city: 'Oslo', tempC: 4 }), {
      output: ZodForecast,
    });
    expectTypeOf(result).toEqualTypeOf<ValidatedCallToolResult<typeof ZodForecast>>();
    if (result.isError) throw new Error('not a tool error');
    expectTypeOf(result.structuredContent).toEqualTypeOf<{ city: string; tempC: number; unit: string }>();
    expect(result.structuredContent).toEqual({ city: 'Oslo', tempC: 4, unit: 'C' });
    expect(result.content).toEqual([{ type: 'text', text: '{"city":"Oslo","tempC":4}' }]);
  });

  test('zod: a mismatch rejects naming the tool and the first issue path and message', async () => {
    const client = await connect(era);
    const error = await rejection(
      client.callTool('reply', structured({ city: 'Oslo', tempC: 'warm' }), { output: ZodForecast }),
    );
    expect(error.toolName).toBe('reply');
    expect(error.message).toMatch(
      /^Tool reply returned structuredContent that does not match the output schema: \/tempC: /,
    );
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatch(/^\/tempC: .*number/i);
    expect(error.result).toMatchObject({ structuredContent: { tempC: 'warm' } });
  });

  test('valibot: a matching result passes; a mismatch names every issue, the first in the message', async () => {
    const client = await connect(era);
    const ok = await client.callTool('reply', structured({ city: 'Oslo', tempC: 4 }), {
      output: ValibotForecast,
    });
    if (ok.isError) throw new Error('not a tool error');
    expectTypeOf(ok.structuredContent).toEqualTypeOf<{ city: string; tempC: number }>();
    expect(ok.structuredContent).toEqual({ city: 'Oslo', tempC: 4 });

    const error = await rejection(
      client.callTool('reply', structured({ city: 7, tempC: 'warm' }), { output: ValibotForecast }),
    );
    expect(error.issues).toHaveLength(2);
    expect(error.issues[0]).toMatch(/^\/city: /);
    expect(error.issues[1]).toMatch(/^\/tempC: /);
    expect(error.message).toContain(`: ${error.issues[0]} (and 1 more)`);
  });

  test('no structuredContent (and no tool error): rejects', async () => {
    const client = await connect(era);
    const error = await rejection(
      client.callTool(
        'reply',
        { result: { content: [{ type: 'text', text: 'plain' }] } },
        { output: ZodForecast },
      ),
    );
    expect(error.message).toMatch(/^Tool reply returned no structuredContent/);
  });

  test('a tool error (isError: true) is returned as it is, not validated', async () => {
    const client = await connect(era);
    const result = await within(
      client.callTool(
        'reply',
        { result: { content: [{ type: 'text', text: 'no such city' }], isError: true } },
        {
          output: ZodForecast,
        },
      ),
    );
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'no such city' }], isError: true });
    expect(result.structuredContent).toBeUndefined();
  });
});

describe('callTool with { output }: the rest', () => {
  test('arktype works too', async () => {
    const client = await connect('legacy');
    const Forecast = type({ city: 'string', tempC: 'number' });
    const result = await client.callTool('reply', structured({ city: 'Oslo', tempC: 4 }), {
      output: Forecast,
    });
    if (result.isError) throw new Error('not a tool error');
    expect(result.structuredContent.tempC).toBe(4);
    await rejection(client.callTool('reply', structured({ city: 'Oslo' }), { output: Forecast }));
  });

  test('validateOutput: false does not switch the output schema off', async () => {
    const client = await connect('legacy');
    await rejection(
      client.callTool('reply', structured({ tempC: 'warm' }), { output: ZodForecast, validateOutput: false }),
    );
  });

  test('a schema that throws rejects with ToolOutputValidationError, the cause in the message', async () => {
    const client = await connect('legacy');
    const broken: StandardSchemaV1<unknown, { x: number }> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new Error('schema exploded');
        },
      },
    };
    const error = await rejection(client.callTool('reply', structured({ x: 1 }), { output: broken }));
    expect(error.message).toBe('Tool reply: the output schema could not be applied: schema exploded');
  });

  test('an output that is no Standard Schema: TypeError, nothing sent', async () => {
    const client = await connect('legacy');
    let sent = 0;
    const request = client.lowLevel.request.bind(client.lowLevel);
    client.lowLevel.request = (...args) => (sent++, request(...args));
    const error = await client
      .callTool('reply', structured({}), { output: { type: 'object' } as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      'callTool("reply"): output must be a Standard Schema (zod 4, valibot, arktype, ...)',
    );
    expect(sent).toBe(0);
  });

  test('without { output } the existing overload is unchanged', async () => {
    const client = await connect('legacy');
    const result = await client.callTool<{ tempC: number }>('reply', structured({ tempC: 'warm' }));
    expectTypeOf(result.structuredContent?.tempC).toEqualTypeOf<number | undefined>();
    expect(result.structuredContent).toEqual({ tempC: 'warm' }); // not validated: no schema given
  });
});
