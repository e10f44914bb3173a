import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCode } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
const opened: Connected[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

function server(): McpServer {
  const s = new McpServer({ name: 's', version: '1' });
  s.resource(
    'readme',
    'test://readme',
    { title: 'Readme', description: 'Read me', mimeType: 'text/markdown', size: 7, _meta: { k: 1 } },
    () => '# Hello',
  );
  s.resource('bin', 'test://bin', { mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri, mimeType: 'image/png', blob: 'AAAA' }],
  }));
  s.resourceTemplate(
    'user',
    'users://{id}/profile{?fields}',
    { description: 'A user', mimeType: 'application/json' },
    (_uri, variables) => JSON.stringify(variables),
    {
      list: () => [{ uri: 'users://1/profile', name: 'user 1' }],
      complete: { id: (value) => ['1', '12', '2'].filter((id) => id.startsWith(value)) },
    },
  );
  return s;
}

describe('resources', () => {
  test('resources/list shows static resources and what templates list', async () => {
    const c = await connect(server());
    opened.push(c);
    expect(await c.client.request('resources/list', {})).toEqual({
      resources: [
        {
          uri: 'test://readme',
          name: 'readme',
          title: 'Readme',
          description: 'Read me',
          mimeType: 'text/markdown',
          size: 7,
          _meta: { k: 1 },
        },
        { uri: 'test://bin', name: 'bin', mimeType: 'image/png' },
        { uri: 'users://1/profile', name: 'user 1' },
      ],
    });
    expect(await c.client.request('resources/templates/list', {})).toEqual({
      resourceTemplates: [
        {
          uriTemplate: 'users://{id}/profile{?fields}',
          name: 'user',
          description: 'A user',
          mimeType: 'application/json',
        },
      ],
    });
  });

  test('resources/read serves static resources and matches templates (RFC 6570)', async () => {
    const c = await connect(server());
    opened.push(c);
    expect(await c.client.request('resources/read', { uri: 'test://readme' })).toEqual({
      contents: [{ uri: 'test://readme', mimeType: 'text/markdown', text: '# Hello' }],
    });
    expect(await c.client.request('resources/read', { uri: 'test://bin' })).toEqual({
      contents: [{ uri: 'test://bin', mimeType: 'image/png', blob: 'AAAA' }],
    });
    const read = await c.client.request('resources/read', { uri: 'users://a%20b/profile?fields=name' });
    expect(JSON.parse((read.contents as { text: string }[])[0]!.text)).toEqual({ id: 'a b', fields: 'name' });
  });

  test('an unknown URI is -32002 with the uri in data; a missing uri is -32602', async () => {
    const c = await connect(server());
    opened.push(c);
    await expect(c.client.request('resources/read', { uri: 'test://nope' })).rejects.toMatchObject({
      code: ErrorCode.ResourceNotFound,
      data: { uri: 'test://nope' },
    });
    await expect(c.client.request('resources/read', {})).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  test('subscribe / unsubscribe / updated reach only subscribed sessions', async () => {
    const s = server();
    const a = await connect(s);
    const b = await connect(s);
    opened.push(a, b);
    expect(await a.client.request('resources/subscribe', { uri: 'test://readme' })).toEqual({});
    const updated = a.nextNotification('notifications/resources/updated');
    await s.notifyResourceUpdated('test://readme');
    expect(await updated).toEqual({ uri: 'test://readme' });
    expect(b.notifications).toEqual([]);

    expect(await a.client.request('resources/unsubscribe', { uri: 'test://readme' })).toEqual({});
    await s.notifyResourceUpdated('test://readme');
    await a.client.request('ping', {});
    expect(a.notifications.filter((n) => n.method === 'notifications/resources/updated')).toHaveLength(1);
    await expect(a.client.request('resources/subscribe', {})).rejects.toMatchObject({ code: -32602 });
  });

  test('completion of a template variable', async () => {
    const c = await connect(server());
    opened.push(c);
    const result = await c.client.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'users://{id}/profile{?fields}' },
      argument: { name: 'id', value: '1' },
    });
    expect(result).toEqual({ completion: { values: ['1', '12'], total: 2, hasMore: false } });
    const none = await c.client.request('completion/complete', {
      ref: { type: 'ref/resource', uri: 'users://{id}/profile{?fields}' },
      argument: { name: 'fields', value: '' },
    });
    expect(none).toEqual({ completion: { values: [] } });
  });

  test('capabilities declare subscribe and listChanged', async () => {
    const c = await connect(server());
    opened.push(c);
    expect(c.client.serverCapabilities).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      completions: {},
      logging: {},
    });
    expect(c.client.serverCapabilities?.tools).toBeUndefined();
    await expect(c.client.request('tools/list', {})).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
    await expect(c.client.request('prompts/get', { name: 'x' })).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
    });
  });
});
