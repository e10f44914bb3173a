import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { ErrorCode } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function server(): McpServer {
  const s = new McpServer({ name: 's', version: '1' }, { logging: false });
  s.prompt(
    'greet',
    {
      title: 'Greet',
      description: 'Greets someone',
      args: z.object({
        who: z.string().describe('Who to greet'),
        tone: z.enum(['warm', 'dry']).optional(),
      }),
      complete: { who: (value) => ['Ada', 'Alan', 'Grace'].filter((n) => n.startsWith(value)) },
    },
    ({ who, tone }) => `Say hello to ${who}${tone ? ` in a ${tone} tone` : ''}`,
  );
  s.prompt(
    'listed',
    {
      description: 'Arguments as a list',
      args: [
        { name: 'a', required: true, description: 'A' },
        { name: 'b', title: 'B' },
      ],
      complete: {
        b: (value, { arguments: chosen }) => [`${chosen.a ?? '?'}:${value}`],
      },
    },
    ({ a, b }) => [
      { role: 'user', content: { type: 'text', text: `a=${a}` } },
      { role: 'assistant', content: { type: 'text', text: `b=${b ?? '-'}` } },
    ],
  );
  return s;
}

describe('prompts', () => {
  test('prompts/list shows arguments derived from a schema or given as a list', async () => {
    open = await connect(server());
    expect(await open.client.request('prompts/list', {})).toEqual({
      prompts: [
        {
          name: 'greet',
          title: 'Greet',
          description: 'Greets someone',
          arguments: [{ name: 'who', description: 'Who to greet', required: true }, { name: 'tone' }],
        },
        {
          name: 'listed',
          description: 'Arguments as a list',
          arguments: [
            { name: 'a', required: true, description: 'A' },
            { name: 'b', title: 'B' },
          ],
        },
      ],
    });
  });

  test('prompts/get validates arguments and shapes results', async () => {
    open = await connect(server());
    expect(
      await open.client.request('prompts/get', { name: 'greet', arguments: { who: 'Ada', tone: 'warm' } }),
    ).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada in a warm tone' } }],
    });
    expect(await open.client.request('prompts/get', { name: 'listed', arguments: { a: '1' } })).toEqual({
      description: 'Arguments as a list',
      messages: [
        { role: 'user', content: { type: 'text', text: 'a=1' } },
        { role: 'assistant', content: { type: 'text', text: 'b=-' } },
      ],
    });
    for (const params of [
      { name: 'greet', arguments: { tone: 'warm' } },
      { name: 'greet', arguments: { who: 'A', tone: 'loud' } },
      { name: 'listed', arguments: {} },
      { name: 'listed', arguments: { a: 1 } },
      { name: 'nope' },
    ]) {
      await expect(open.client.request('prompts/get', params)).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
      });
    }
  });

  test('completion/complete for prompt arguments, with context', async () => {
    open = await connect(server());
    expect(
      await open.client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'greet' },
        argument: { name: 'who', value: 'A' },
      }),
    ).toEqual({ completion: { values: ['Ada', 'Alan'], total: 2, hasMore: false } });
    expect(
      await open.client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'listed' },
        argument: { name: 'b', value: 'x' },
        context: { arguments: { a: 'first' } },
      }),
    ).toEqual({ completion: { values: ['first:x'], total: 1, hasMore: false } });
    await expect(
      open.client.request('completion/complete', {
        ref: { type: 'ref/prompt', name: 'nope' },
        argument: { name: 'b', value: '' },
      }),
    ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  test('more than 100 completions are cut to 100 with hasMore', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    s.prompt(
      'many',
      {
        description: 'Many',
        args: [{ name: 'n' }],
        complete: { n: () => Array.from({ length: 150 }, (_, i) => String(i)) },
      },
      () => '',
    );
    open = await connect(s);
    const result = await open.client.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'many' },
      argument: { name: 'n', value: '' },
    });
    expect(result.completion).toMatchObject({ total: 150, hasMore: true });
    expect((result.completion as { values: string[] }).values).toHaveLength(100);
  });

  test('without logging, logging/setLevel is -32601; a completer for an unknown argument throws', async () => {
    open = await connect(server());
    expect(open.client.serverCapabilities?.logging).toBeUndefined();
    await expect(open.client.request('logging/setLevel', { level: 'info' })).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
    expect(() =>
      new McpServer({ name: 's', version: '1' }).prompt(
        'p',
        { description: 'P', args: [{ name: 'a' }], complete: { z: () => [] } },
        () => '',
      ),
    ).toThrow(/no argument "z"/);
  });
});
