/**
 * Issue 27 apps: MCP Apps (io.modelcontextprotocol/ui, SEP-1865) end to end over memory, in both
 * eras: the server helpers (apps, appResource, appTool) and the host side (appsSupport, toolUi,
 * modelTools, listAppResources, readApp), the text fallback for clients without the extension, and
 * registration-time refusals of bad input.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { appsSupport, listAppResources, McpClient, modelTools, readApp, toolUi } from 'keel-mcp/client';
import { APP_MIME_TYPE, APPS_EXTENSION_ID, ErrorCode, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { appResource, apps, appTool, McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const ERAS = ['legacy', 'modern'] as const;
const VIEW = 'ui://weather/view.html';
const HTML = '<!doctype html><html><body><p id="out">…</p></body></html>';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** The weather server of docs/apps.md: one UI, a tool linked to it, an app-only refresh tool. */
function weatherServer(): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' }).extend(apps());
  appResource(
    server,
    'Forecast view',
    VIEW,
    {
      description: 'Interactive forecast',
      ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true },
    },
    () => HTML,
  );
  appTool(
    server,
    'forecast',
    {
      description: 'Forecast for a city',
      input: { type: 'object', properties: { city: { type: 'string' } } },
      ui: { resourceUri: VIEW },
    },
    (args) => ({
      content: [{ type: 'text', text: `${String(args.city)}: sunny, 21 °C` }],
      structuredContent: { city: String(args.city), tempC: 21 },
    }),
  );
  appTool(
    server,
    'refresh',
    { description: 'Refresh the view', ui: { resourceUri: VIEW, visibility: ['app'] } },
    () => 'refreshed',
  );
  server.tool('plain', { description: 'No UI' }, () => 'plain');
  return server;
}

async function connect(server: McpServer, era: 'legacy' | 'modern', host: boolean): Promise<McpClient> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new McpClient({ name: host ? 'host' : 'plain', version: '1' }, { era });
  if (host) client.extend(appsSupport());
  await client.connect(clientSide);
  open.push({
    close: async () => {
      await client.close();
      await within(session.closed, 5_000, 'session.closed');
    },
  });
  return client;
}

const textOf = (result: JsonObject): string => (result.content as JsonObject[])[0]!.text as string;

describe.each(ERAS)('%s era', (era) => {
  test('issue 27 apps: a host declares the extension and sees the tool links, the UI and its metadata', async () => {
    const client = await connect(weatherServer(), era, true);
    expect(client.capabilities.extensions).toEqual({ [APPS_EXTENSION_ID]: { mimeTypes: [APP_MIME_TYPE] } });
    expect(client.serverExtension(APPS_EXTENSION_ID)).toEqual({});
    const tools = await client.listAllTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(['forecast', 'plain', 'refresh']);
    expect(byName.get('forecast')!._meta).toEqual({ ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW });
    expect(toolUi(byName.get('forecast')!)).toEqual({
      resourceUri: VIEW,
      visibility: ['model', 'app'],
      forModel: true,
      forApp: true,
    });
    expect(toolUi(byName.get('refresh')!)).toMatchObject({
      resourceUri: VIEW,
      forModel: false,
      forApp: true,
    });
    expect(toolUi(byName.get('plain')!)).toBeUndefined();
    expect(
      modelTools(tools)
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['forecast', 'plain']);

    const [listed] = await listAppResources(client);
    expect(listed).toMatchObject({ uri: VIEW, name: 'Forecast view', mimeType: APP_MIME_TYPE });
    expect(listed!._meta).toEqual({
      ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true },
    });
    const read = await client.readResource(VIEW);
    expect(read.contents).toEqual([
      {
        uri: VIEW,
        mimeType: APP_MIME_TYPE,
        text: HTML,
        _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
      },
    ]);
    const app = await readApp(client, VIEW);
    expect(app).toEqual({
      uri: VIEW,
      html: HTML,
      ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true },
    });
    expect(textOf(await client.callTool('refresh', {}))).toBe('refreshed');
  });

  test('issue 27 apps: a client without the extension gets the UI tool as text and never sees app-only tools', async () => {
    const server = weatherServer();
    const client = await connect(server, era, false);
    const names = (await client.listAllTools()).map((tool) => tool.name).sort();
    expect(names).toEqual(['forecast', 'plain']);
    const result = await client.callTool('forecast', { city: 'Oslo' });
    expect(textOf(result)).toBe('Oslo: sunny, 21 °C');
    await expect(client.callTool('refresh', {})).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/refresh/),
    });
    // The same server still serves a host on the side.
    const host = await connect(server, era, true);
    expect(textOf(await host.callTool('refresh', {}))).toBe('refreshed');
  });

  test('issue 27 apps: a UI item without _meta.ui falls back to the listing entry; blob HTML is decoded', async () => {
    const server = new McpServer({ name: 'blob', version: '1' }).extend(apps());
    appResource(server, 'Blob view', 'ui://blob/view', { ui: { domain: 'x.example.com' } }, (uri) => ({
      contents: [{ uri, blob: Buffer.from('<p>é</p>', 'utf8').toString('base64'), _meta: {} }],
    }));
    appResource(server, 'Bare', 'ui://bare/view', {}, () => '<p>bare</p>');
    const client = await connect(server, era, true);
    expect(await readApp(client, 'ui://bare/view')).toEqual({
      uri: 'ui://bare/view',
      html: '<p>bare</p>',
      ui: {},
    });
    const listed = (await listAppResources(client)).find((r) => r.uri === 'ui://blob/view');
    // The content item carries the listing's _meta.ui (added when missing), so the read wins.
    expect(await readApp(client, 'ui://blob/view', { listing: listed! })).toEqual({
      uri: 'ui://blob/view',
      html: '<p>é</p>',
      ui: { domain: 'x.example.com' },
    });
  });
});

describe('bad input', () => {
  const server = (): McpServer => new McpServer({ name: 'bad', version: '1' }).extend(apps());

  test('issue 27 apps: appResource takes ui:// URIs only and checks its metadata', () => {
    const s = server();
    expect(() => appResource(s, 'x', 'https://example.com/x.html', {}, () => '')).toThrow(/ui:\/\//);
    expect(() => appResource(s, 'x', 'ui://', {}, () => '')).toThrow(/ui:\/\//);
    expect(() => appResource(s, 'x', 'ui://x', { mimeType: 'text/html' } as never, () => '')).toThrow(
      /MIME type/,
    );
    expect(() =>
      appResource(s, 'x', 'ui://x', { ui: { csp: { connectDomains: ['api.example.com'] } } }, () => ''),
    ).toThrow(/connectDomains entries are origins/);
    expect(() =>
      appResource(
        s,
        'x',
        'ui://x',
        { ui: { csp: { connectDomains: ["https://a.example.com; script-src 'unsafe-eval'"] } } },
        () => '',
      ),
    ).toThrow(/origins/);
    expect(() =>
      appResource(s, 'x', 'ui://x', { ui: { csp: { scriptDomains: [] } as never } }, () => ''),
    ).toThrow(/unknown csp field/);
    expect(() =>
      appResource(s, 'x', 'ui://x', { ui: { permissions: { usb: {} } as never } }, () => ''),
    ).toThrow(/unknown permission "usb"/);
    expect(() =>
      appResource(s, 'x', 'ui://x', { ui: { permissions: { camera: true } as never } }, () => ''),
    ).toThrow(/camera/);
    expect(() => appResource(s, 'x', 'ui://x', { ui: { prefersBorder: 'yes' } as never }, () => '')).toThrow(
      /prefersBorder/,
    );
    expect(() => appResource(s, 'x', 'ui://x', { ui: { border: true } as never }, () => '')).toThrow(
      /unknown MCP Apps resource setting/,
    );
    expect(() =>
      appResource(new McpServer({ name: 'n', version: '1' }), 'x', 'ui://x', {}, () => ''),
    ).toThrow(/server.extend\(apps\(\)\)/);
  });

  test('issue 27 apps: appTool links only to a registered UI resource and checks visibility', () => {
    const s = server();
    appResource(s, 'v', 'ui://v', {}, () => '<p>v</p>');
    expect(() =>
      appTool(s, 't1', { description: 't', ui: { resourceUri: 'ui://missing' } }, () => 'x'),
    ).toThrow(/not a UI resource of this server/);
    expect(() => appTool(s, 't2', { description: 't', ui: { resourceUri: 'https://x' } }, () => 'x')).toThrow(
      /ui:\/\//,
    );
    expect(() =>
      appTool(s, 't3', { description: 't', ui: { resourceUri: 'ui://v', visibility: [] } }, () => 'x'),
    ).toThrow(/visibility/);
    expect(() =>
      appTool(
        s,
        't4',
        { description: 't', ui: { resourceUri: 'ui://v', visibility: ['agent'] as never } },
        () => 'x',
      ),
    ).toThrow(/visibility/);
    expect(() => appTool(s, 't5', { description: 't', ui: {} }, () => 'x')).toThrow(
      /resourceUri or a visibility/,
    );
    expect(() =>
      appTool(s, 't6', { description: 't', ui: { resourceUri: 'ui://v', csp: {} } as never }, () => 'x'),
    ).toThrow(/belong on the resource/);
    expect(() =>
      appTool(s, 't7', { description: 't', ui: { resourceUri: 'ui://v' }, _meta: { ui: {} } }, () => 'x'),
    ).toThrow(/not in _meta/);
    expect(() => appTool(s, 't8', { description: 't' } as never, () => 'x')).toThrow(/ui \{/);
  });

  test.each(ERAS)(
    'issue 27 apps: a UI tool returning no content fails with a clear message (%s)',
    async (era) => {
      const s = server();
      appResource(s, 'v', 'ui://v', {}, () => '<p>v</p>');
      appTool(s, 'empty', { description: 'e', ui: { resourceUri: 'ui://v' } }, () => ({ content: [] }));
      const reported: unknown[] = [];
      s.onerror = (error) => void reported.push(error);
      const client = await connect(s, era, true);
      const result = await client.callTool('empty', {});
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/no content.*text for hosts without the UI/);
      expect(String(reported[0])).toMatch(/returned no content/);
    },
  );

  test('issue 27 apps: readApp refuses content that is not an MCP App', async () => {
    const s = new McpServer({ name: 'n', version: '1' });
    s.resource('fake', 'ui://fake', { mimeType: 'text/html' }, () => '<p>not an app</p>');
    const client = await connect(s, 'legacy', true);
    await expect(readApp(client, 'ui://fake')).rejects.toThrow(/not an MCP App/);
    await expect(readApp(client, 'https://x')).rejects.toThrow(/ui:\/\//);
  });
});
