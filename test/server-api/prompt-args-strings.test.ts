/**
 * Issue 13: prompt arguments are strings on the wire, so an `args` schema with a property that
 * cannot be a string is refused at registration (and is a type error), instead of registering and
 * then failing every `prompts/get`.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { McpServer, type PromptArgsInput } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const server = () => new McpServer({ name: 's', version: '1' });
/** What a JavaScript caller (no type check) passes. */
const untyped = (schema: unknown) => schema as PromptArgsInput;

describe('prompt args must be strings', () => {
  test('a number argument throws at registration, naming the prompt, the argument and the fix', () => {
    const s = server();
    expect(() =>
      // @ts-expect-error: prompt arguments are strings on the wire
      s.prompt('count', { description: 'C', args: z.object({ n: z.number() }) }, ({ n }) => `n=${n}`),
    ).toThrow(/prompt "count".*argument "n".*strings on the wire.*z\.string\(\)/s);
    // Nothing was registered: the name is still free.
    expect(() => s.prompt('count', { description: 'C' }, () => 'x')).not.toThrow();
  });

  test.each([
    ['boolean', z.boolean().optional()],
    ['array', z.array(z.string())],
    ['object', z.object({ a: z.string() })],
    ['enum of numbers', z.union([z.literal(1), z.literal(2)])],
  ])('a %s argument throws too', (_label, property) => {
    expect(() =>
      server().prompt(
        'p',
        { description: 'P', args: untyped(z.object({ ok: z.string(), bad: property })) },
        () => 'x',
      ),
    ).toThrow(/argument "bad"/);
  });

  test('strings, optional strings, string enums, literals, defaults, transforms and refs stay fine', async () => {
    const s = server();
    const named = z.string().meta({ id: 'NamedString' });
    s.prompt(
      'ok',
      {
        description: 'OK',
        args: z.object({
          who: z.string().describe('Whom to greet'),
          tone: z.enum(['warm', 'dry']).optional(),
          lang: z.literal('en').optional(),
          punct: z.string().default('!'),
          times: z.string().transform(Number).optional(),
          nick: named.optional(),
          either: z.union([z.literal('a'), z.literal('b')]).optional(),
        }),
      },
      ({ who, tone, punct, times }) => `${tone ?? 'plain'} hello to ${who}${punct} x${times ?? 1}`,
    );
    open = await connect(s);
    const { prompts } = (await open.client.request('prompts/list', {})) as {
      prompts: { arguments: { name: string; required?: boolean }[] }[];
    };
    expect(prompts[0]!.arguments.map((a) => a.name)).toEqual([
      'who',
      'tone',
      'lang',
      'punct',
      'times',
      'nick',
      'either',
    ]);
    const result = (await open.client.request('prompts/get', {
      name: 'ok',
      arguments: { who: 'Ada', tone: 'warm', times: '2' },
    })) as { messages: { content: { text: string } }[] };
    expect(result.messages[0]!.content.text).toBe('warm hello to Ada! x2');
  });
});
