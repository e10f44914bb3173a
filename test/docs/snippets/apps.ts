/**
 * The examples of docs/apps.md: the server (region `apps-server`) and the host side (region
 * `apps-host`). Run by test/apps/docs-snippets.test.ts in both eras.
 */
import { appsSupport, McpClient, modelTools, readApp, toolUi, type AppDocument } from 'keel-mcp/client';
import type { Transport } from 'keel-mcp/core';
import { appResource, apps, appTool, McpServer } from 'keel-mcp/server';
import { z } from 'zod';

export function weatherServer(html: string): McpServer {
  // #region apps-server
  const server = new McpServer({ name: 'weather', version: '1.0.0' }).extend(apps());
  appResource(
    server,
    'Forecast view',
    'ui://weather/forecast.html',
    { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } },
    () => html, // the app's HTML document, its scripts inlined
  );
  appTool(
    server,
    'forecast',
    {
      description: 'Forecast for a city',
      input: z.object({ city: z.string() }),
      ui: { resourceUri: 'ui://weather/forecast.html' },
    },
    // The text is what a host without MCP Apps shows; the app gets the same result.
    ({ city }) => ({
      content: [{ type: 'text', text: `${city}: sunny, 21 °C` }],
      structuredContent: { city, tempC: 21 },
    }),
  );
  appTool(
    server,
    'refresh', // called by the app through the host, never by the model
    {
      description: 'Refresh the view',
      ui: { resourceUri: 'ui://weather/forecast.html', visibility: ['app'] },
    },
    () => 'refreshed',
  );
  // #endregion
  return server;
}

export async function hostSide(
  transport: Transport,
  era: 'legacy' | 'modern',
): Promise<{ client: McpClient; forModel: string[]; apps: AppDocument[] }> {
  const found: AppDocument[] = [];
  // #region apps-host
  const client = new McpClient({ name: 'my-host', version: '1.0.0' }, { era }).extend(appsSupport());
  await client.connect(transport);
  const tools = await client.listAllTools();
  const forModel = modelTools(tools); // what the agent may see: app-only tools left out
  for (const tool of forModel) {
    const ui = toolUi(tool); // { resourceUri, visibility, forModel, forApp } or undefined
    if (ui?.resourceUri) {
      const app = await readApp(client, ui.resourceUri); // { uri, html, ui: { csp, ... } }
      // render app.html in <iframe sandbox="allow-scripts"> with a CSP built from app.ui.csp
      found.push(app);
    }
  }
  // #endregion
  return { client, forModel: forModel.map((tool) => tool.name), apps: found };
}
