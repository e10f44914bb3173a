import { afterEach, describe, expect, test } from 'vitest';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function populated(pageSize: number): McpServer {
  const server = new McpServer({ name: 's', version: '1' }, { pageSize });
  for (let i = 0; i < 5; i++) {
    server.tool(`tool${i}`, { description: `Tool ${i}` }, () => '');
    server.resource(`res${i}`, `test://res/${i}`, {}, () => '');
    server.resourceTemplate(`tpl${i}`, `test://tpl${i}/{id}`, {}, () => '');
    server.prompt(`prompt${i}`, { description: `Prompt ${i}` }, () => '');
  }
  return server;
}

async function collect(
  c: Connected,
  method: string,
  key: string,
): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await c.client.request(method, cursor === undefined ? {} : { cursor });
    pages++;
    for (const item of page[key] as { name: string }[]) names.push(item.name);
    cursor = page.nextCursor as string | undefined;
  } while (cursor !== undefined && pages < 20);
  return { names, pages };
}

describe('pagination', () => {
  const lists: [string, string, string][] = [
    ['tools/list', 'tools', 'tool'],
    ['resources/list', 'resources', 'res'],
    ['resources/templates/list', 'resourceTemplates', 'tpl'],
    ['prompts/list', 'prompts', 'prompt'],
  ];
  for (const [method, key, prefix] of lists) {
    test(`${method} pages with an opaque cursor`, async () => {
      open = await connect(populated(2));
      const { names, pages } = await collect(open, method, key);
      expect(names).toEqual([0, 1, 2, 3, 4].map((i) => `${prefix}${i}`));
      expect(pages).toBe(3);
    });
  }

  test('the last page has no nextCursor; page size 0 lists everything at once', async () => {
    open = await connect(populated(0));
    const page = await open.client.request('tools/list', {});
    expect((page.tools as unknown[]).length).toBe(5);
    expect(page.nextCursor).toBeUndefined();
  });

  test('invalid cursors are -32602', async () => {
    open = await connect(populated(2));
    const first = await open.client.request('tools/list', {});
    const toolsCursor = first.nextCursor as string;
    for (const cursor of ['garbage', btoa('{"l":"tools","o":-1}'), btoa('[]'), 42]) {
      await expect(open.client.request('tools/list', { cursor })).rejects.toMatchObject({ code: -32602 });
    }
    // A cursor of one list is not valid for another.
    await expect(open.client.request('prompts/list', { cursor: toolsCursor })).rejects.toMatchObject({
      code: -32602,
    });
  });
});
