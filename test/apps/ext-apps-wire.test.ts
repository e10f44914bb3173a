/**
 * Issue 27 apps: Keel's MCP Apps wire form checked against the published
 * `@modelcontextprotocol/ext-apps` 2.0 (a devDependency only): its exported types (type level), its
 * zod schemas, its host helpers (app-bridge), and what its own server helpers `registerAppTool` /
 * `registerAppResource` produce on the official `@modelcontextprotocol/server` McpServer for the
 * same input.
 */
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest';
import {
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  type McpUiClientCapabilities,
  type McpUiResourceCsp,
  type McpUiResourceMeta,
  type McpUiResourcePermissions,
  type McpUiToolMeta,
  type McpUiToolVisibility,
} from '@modelcontextprotocol/ext-apps';
import {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';
import {
  EXTENSION_ID,
  getUiCapability,
  registerAppResource,
  registerAppTool,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/server';
import { Client as OfficialClient } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer as OfficialServer } from '@modelcontextprotocol/server';
import { appsSupport, McpClient, toolUi } from 'keel-mcp/client';
import {
  APP_MIME_TYPE,
  APPS_EXTENSION_ID,
  LEGACY_RESOURCE_URI_KEY,
  type AppCsp,
  type AppPermissions,
  type AppResourceMeta,
  type AppToolMeta,
  type AppVisibility,
  type JsonObject,
  type Tool,
} from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { appResource, apps, appTool, McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const RESOURCE_META: AppResourceMeta = {
  csp: {
    connectDomains: ['https://api.example.com', 'wss://live.example.com'],
    resourceDomains: ['https://*.cdn.example.com'],
    frameDomains: ['https://www.youtube.com'],
    baseUriDomains: ['https://cdn.example.com'],
  },
  permissions: { camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} },
  domain: 'a904794854a047f6.claudemcpcontent.com',
  prefersBorder: false,
};

/** The same UI and tools, registered once with Keel and once with ext-apps on the official server. */
const TOOLS: { name: string; ui: AppToolMeta }[] = [
  { name: 'forecast', ui: { resourceUri: 'ui://weather/view.html' } },
  { name: 'both', ui: { resourceUri: 'ui://weather/view.html', visibility: ['model', 'app'] } },
  { name: 'refresh', ui: { resourceUri: 'ui://weather/view.html', visibility: ['app'] } },
  { name: 'model-only', ui: { resourceUri: 'ui://weather/view.html', visibility: ['model'] } },
];

async function keelListing(): Promise<{ tools: Tool[]; resources: JsonObject[]; read: JsonObject }> {
  const server = new McpServer({ name: 'keel', version: '1' }).extend(apps());
  appResource(
    server,
    'weather_view',
    'ui://weather/view.html',
    { description: 'Forecast', ui: RESOURCE_META },
    () => '<p>hi</p>',
  );
  for (const { name, ui } of TOOLS) appTool(server, name, { description: name, ui }, () => name);
  const [clientSide, serverSide] = createMemoryPair();
  server.connect(serverSide);
  const client = new McpClient({ name: 'host', version: '1' }).extend(appsSupport());
  await client.connect(clientSide);
  open.push(client);
  return {
    tools: await client.listAllTools(),
    resources: (await client.listAllResources()) as unknown as JsonObject[],
    read: (await client.readResource('ui://weather/view.html')) as unknown as JsonObject,
  };
}

async function officialListing(): Promise<{ tools: JsonObject[]; resources: JsonObject[] }> {
  const server = new OfficialServer({ name: 'official', version: '1' });
  registerAppResource(
    server,
    'weather_view',
    'ui://weather/view.html',
    { description: 'Forecast', _meta: { ui: RESOURCE_META } },
    async () => ({
      contents: [{ uri: 'ui://weather/view.html', mimeType: RESOURCE_MIME_TYPE, text: '<p>hi</p>' }],
    }),
  );
  for (const { name, ui } of TOOLS)
    registerAppTool(server, name, { description: name, _meta: { ui: ui as McpUiToolMeta } }, async () => ({
      content: [{ type: 'text' as const, text: name }],
    }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new OfficialClient({ name: 'host', version: '1' });
  await client.connect(clientSide);
  open.push({ close: () => client.close().then(() => server.close()) });
  return {
    tools: (await client.listTools()).tools as unknown as JsonObject[],
    resources: (await client.listResources()).resources as unknown as JsonObject[],
  };
}

describe('types (ext-apps 2.0.4)', () => {
  test('issue 27 apps: Keel metadata types are assignable to ext-apps types and back', () => {
    expectTypeOf<AppVisibility>().toEqualTypeOf<McpUiToolVisibility>();
    expectTypeOf<AppCsp>().toEqualTypeOf<McpUiResourceCsp>();
    expectTypeOf<AppPermissions>().toExtend<McpUiResourcePermissions>();
    expectTypeOf<AppResourceMeta>().toExtend<McpUiResourceMeta>();
    expectTypeOf<AppToolMeta>().toExtend<McpUiToolMeta>();
    expectTypeOf<McpUiToolMeta>().toExtend<AppToolMeta>();
    expectTypeOf<keyof McpUiResourceMeta>().toEqualTypeOf<keyof AppResourceMeta>();
    expectTypeOf<keyof McpUiResourcePermissions>().toEqualTypeOf<keyof AppPermissions>();
    expectTypeOf<typeof APP_MIME_TYPE>().toEqualTypeOf<typeof RESOURCE_MIME_TYPE>();
    expectTypeOf<typeof APPS_EXTENSION_ID>().toEqualTypeOf<typeof EXTENSION_ID>();
    expectTypeOf<typeof LEGACY_RESOURCE_URI_KEY>().toEqualTypeOf<typeof RESOURCE_URI_META_KEY>();
    expect([APP_MIME_TYPE, APPS_EXTENSION_ID, LEGACY_RESOURCE_URI_KEY]).toEqual([
      RESOURCE_MIME_TYPE,
      EXTENSION_ID,
      RESOURCE_URI_META_KEY,
    ]);
  });
});

describe('runtime (ext-apps 2.0.4)', () => {
  test('issue 27 apps: Keel writes the same tools/list and resources/list _meta as ext-apps on the official server', async () => {
    const [keel, official] = await Promise.all([keelListing(), officialListing()]);
    const pick = (tool: JsonObject): JsonObject => ({
      name: tool.name,
      description: tool.description,
      _meta: tool._meta ?? null,
    });
    expect(keel.tools.map((t) => pick(t as unknown as JsonObject))).toEqual(official.tools.map(pick));
    const entry = (r: JsonObject): JsonObject => ({
      uri: r.uri,
      name: r.name,
      description: r.description,
      mimeType: r.mimeType,
      _meta: r._meta ?? null,
    });
    expect(keel.resources.map(entry)).toEqual(official.resources.map(entry));
  });

  test('issue 27 apps: what Keel puts on the wire passes ext-apps zod schemas unchanged', async () => {
    const keel = await keelListing();
    for (const tool of keel.tools) {
      const ui = (tool._meta as JsonObject).ui;
      expect(McpUiToolMetaSchema.parse(ui)).toEqual(ui);
    }
    const listed = keel.resources[0]!._meta as JsonObject;
    expect(McpUiResourceMetaSchema.parse(listed.ui)).toEqual(RESOURCE_META);
    const item = (keel.read.contents as JsonObject[])[0]!;
    expect(item.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(McpUiResourceMetaSchema.parse((item._meta as JsonObject).ui)).toEqual(RESOURCE_META);
  });

  test('issue 27 apps: the client declares what getUiCapability expects, on both sides of the wire', async () => {
    const server = new McpServer({ name: 'keel', version: '1' }).extend(apps());
    let seen: McpUiClientCapabilities | undefined;
    server.tool('probe', { description: 'probe' }, (_args, ctx) => {
      seen = getUiCapability(ctx.clientCapabilities as never);
      return 'ok';
    });
    const [clientSide, serverSide] = createMemoryPair();
    server.connect(serverSide);
    const client = new McpClient({ name: 'host', version: '1' }).extend(appsSupport());
    await client.connect(clientSide);
    open.push(client);
    await client.callTool('probe', {});
    expect(getUiCapability(client.capabilities as never)?.mimeTypes).toContain(RESOURCE_MIME_TYPE);
    expect(seen).toEqual({ mimeTypes: [RESOURCE_MIME_TYPE] });
  });

  test('issue 27 apps: toolUi reads tools as ext-apps host helpers do (nested, legacy key, visibility)', () => {
    const shapes: Partial<Tool>[] = [
      { _meta: { ui: { resourceUri: 'ui://a' } } },
      { _meta: { [RESOURCE_URI_META_KEY]: 'ui://legacy' } },
      { _meta: { ui: { resourceUri: 'ui://nested' }, [RESOURCE_URI_META_KEY]: 'ui://legacy' } },
      { _meta: { ui: { resourceUri: 'ui://a', visibility: ['app'] } } },
      { _meta: { ui: { resourceUri: 'ui://a', visibility: ['model'] } } },
      { _meta: { ui: { visibility: ['app', 'model'] } } },
      { _meta: { other: 1 } },
      {},
    ];
    for (const tool of shapes) {
      const ui = toolUi(tool);
      expect(ui?.resourceUri).toBe(getToolUiResourceUri(tool as never));
      expect(ui !== undefined && !ui.forModel).toBe(isToolVisibilityAppOnly(tool as never));
      expect(ui !== undefined && !ui.forApp).toBe(isToolVisibilityModelOnly(tool as never));
    }
    // ext-apps throws on a link that is not ui://; a host built on toolUi ignores it, as the spec's
    // host check (`uiUri.startsWith("ui://")`) does.
    const bad = { _meta: { ui: { resourceUri: 'https://evil.example.com' } } };
    expect(() => getToolUiResourceUri(bad as never)).toThrow();
    expect(toolUi(bad as never)).toBeUndefined();
  });
});
