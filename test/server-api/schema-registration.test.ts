/**
 * Issue 9 item 19: a raw JSON Schema that is not a valid schema fails when it is registered
 * (naming the tool and the problem), not on every call.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { assertValidJsonSchema } from '../../src/core/schema/index.js';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const server = () => new McpServer({ name: 's', version: '1' });

describe('raw JSON Schemas are checked against the 2020-12 meta-schema at registration', () => {
  test('{ type: 12 } as a tool input schema throws, naming the tool and the keyword', () => {
    const s = server();
    expect(() => s.tool('bad', { description: 'Bad', input: { type: 12 } }, () => 'never')).toThrow(
      /^The tool "bad" input schema is not a valid JSON Schema \(2020-12\): \/type: /,
    );
    // Nothing was registered.
    expect(s.capabilities.tools).toBeUndefined();
  });

  test('problems deep inside the schema are found, with their JSON Pointer', () => {
    const s = server();
    const input = { type: 'object', properties: { a: { type: 'string', minLength: -1 } } };
    expect(() => s.tool('deep', { description: 'Deep', input }, () => '')).toThrow(
      /tool "deep" input schema .*\/properties\/a\/minLength: -1 is less than 0/,
    );
    const output = { type: 'object', properties: { n: { type: 'number' } }, required: 'n' };
    expect(() => s.tool('out', { description: 'Out', output }, () => ({ n: 1 }))).toThrow(
      /^The tool "out" output schema is not a valid JSON Schema \(2020-12\): \/required: /,
    );
    const pattern = { type: 'object', properties: { s: { type: 'string', pattern: '(' } } };
    expect(() => s.tool('re', { description: 'Regex', input: pattern }, () => '')).toThrow(
      /\/properties\/s\/pattern: String does not match format "regex"/,
    );
    const bad = { type: 'object', properties: { x: { type: 'strnig' } } };
    expect(() => s.tool('typo', { description: 'Typo', input: bad }, () => '')).toThrow(
      /\/properties\/x\/type/,
    );
  });

  test('valid schemas are accepted unchanged, other dialects are left to their own rules', async () => {
    const s = server();
    const input = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { $ref: '#/$defs/city' }, days: { type: ['integer', 'null'], minimum: 1 } },
      required: ['city'],
      additionalProperties: false,
      $defs: { city: { type: 'string', minLength: 1, pattern: '^[A-Z]' } },
    };
    s.tool('ok', { description: 'Fine', input }, ({ city }) => String(city));
    // A draft-07 tuple (`items` as an array) is not valid 2020-12 and must not be judged as such.
    const old = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    };
    s.tool('old', { description: 'Draft-07' }, () => '');
    s.tool('old2', { description: 'Draft-07 input', input: old }, () => 'ok');
    open = await connect(s);
    const { tools } = (await open.client.request('tools/list', {})) as { tools: JsonObject[] };
    expect(tools.find((t) => t.name === 'ok')!.inputSchema).toBe(input);
    expect(await open.client.request('tools/call', { name: 'ok', arguments: { city: 'Oslo' } })).toEqual({
      content: [{ type: 'text', text: 'Oslo' }],
    });
  });

  test('a raw elicitation schema that is not a schema fails before anything is sent', async () => {
    const s = server();
    s.tool('ask', { description: 'Asks' }, async (_a, ctx) => {
      await ctx.elicit({
        message: 'x',
        schema: { type: 'object', properties: { n: { type: 'number', maximum: 'ten' } } },
      });
      return 'sent';
    });
    open = await connect(s, { capabilities: { elicitation: {} } });
    let asked = 0;
    open.client.setRequestHandler('elicitation/create', () => {
      asked++;
      return { action: 'cancel' };
    });
    const result = await open.client.request('tools/call', { name: 'ask' });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(
      /^The elicitation schema is not a valid JSON Schema \(2020-12\): \/properties\/n\/maximum: /,
    );
    expect(asked).toBe(0);
  });

  test('assertValidJsonSchema is usable on its own', () => {
    expect(() => assertValidJsonSchema({ type: 'object' }, 'mine')).not.toThrow();
    expect(() => assertValidJsonSchema({ enum: 'a' }, 'mine')).toThrow(/The mine schema .*\/enum/);
  });
});
