/**
 * `samplingText(result)`: the text of a sampling result, whether `content` is one block (before
 * 2025-11-25) or an array (2025-11-25+); and the same text through a real round trip in both eras.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { McpClient, type SamplingHandler } from 'keel-mcp/client';
import { samplingText, type CreateMessageResult } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const reply = (content: CreateMessageResult['content']): CreateMessageResult => ({
  role: 'assistant',
  content,
  model: 'm',
});

describe('samplingText', () => {
  test('one text block (legacy shape)', () => {
    expect(samplingText(reply({ type: 'text', text: 'Hello' }))).toBe('Hello');
  });

  test('an array of text blocks, joined with "\\n"', () => {
    expect(
      samplingText(
        reply([
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ]),
      ),
    ).toBe('one\ntwo');
  });

  test('mixed blocks: only the text is kept, in order', () => {
    const mixed = reply([
      { type: 'text', text: 'Looking it up.' },
      { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Oslo' } },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'text', text: 'Done.' },
    ]);
    expect(samplingText(mixed)).toBe('Looking it up.\nDone.');
  });

  test('no text at all: an empty string', () => {
    expect(samplingText(reply([]))).toBe('');
    expect(samplingText(reply({ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }))).toBe('');
    expect(samplingText(reply([{ type: 'tool_use', id: 'c1', name: 'x', input: {} }]))).toBe('');
  });
});

describe('samplingText on what ctx.createMessage returns', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup());
  });

  test.each(['legacy', 'modern'] as const)('%s era: an array answer becomes its text', async (era) => {
    const server = new McpServer({ name: 's', version: '1' });
    server.tool('ask', { description: 'asks the model' }, async (_args, ctx) => {
      const result = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
        maxTokens: 10,
      });
      return samplingText(result);
    });
    const sampling: SamplingHandler = () =>
      reply([
        { type: 'text', text: 'first' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'text', text: 'second' },
      ]);
    const [clientSide, serverSide] = createMemoryPair();
    const session = server.connect(serverSide);
    const client = new McpClient({ name: 'c', version: '1' }, { era, sampling });
    cleanups.push(async () => {
      await client.close();
      await session.closed;
    });
    await within(client.connect(clientSide));
    expect(client.era).toBe(era);
    const result = await within(client.callTool('ask', {}));
    expect(result.content).toEqual([{ type: 'text', text: 'first\nsecond' }]);
  });
});
