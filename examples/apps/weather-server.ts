/**
 * The weather server of docs/apps.md: one MCP App (ui://weather/forecast.html), a tool that renders
 * in it and still answers in text for hosts without MCP Apps, and an app-only tool the UI calls.
 */
import { appResource, apps, appTool, McpServer } from 'keel-mcp/server';

const VIEW = 'ui://weather/forecast.html';
const CITIES: Record<string, number> = { Oslo: 21, Lima: 18, Perth: 30 };

/**
 * The weather server; `appHtml` is the app's HTML document (bundle.ts makes it).
 *
 * @example
 * const server = weatherServer('<!doctype html><html><body>…</body></html>');
 */
export function weatherServer(appHtml: string): McpServer {
  const server = new McpServer({ name: 'keel-weather', version: '1.0.0' }).extend(apps());
  appResource(
    server,
    'Forecast view',
    VIEW,
    { description: 'Interactive forecast', ui: { prefersBorder: true } },
    () => appHtml,
  );
  const input = {
    type: 'object',
    properties: { city: { type: 'string', description: 'City name' } },
    required: ['city'],
  };
  appTool(
    server,
    'forecast',
    { description: 'Forecast for a city', input, ui: { resourceUri: VIEW } },
    ({ city }) => {
      const tempC = CITIES[String(city)] ?? 15;
      // The text is the fallback a host without MCP Apps shows; the app renders the same result.
      return {
        content: [{ type: 'text', text: `${String(city)}: sunny, ${tempC} °C` }],
        structuredContent: { city: String(city), tempC },
      };
    },
  );
  appTool(
    server,
    'refresh',
    { description: 'Refresh the forecast view', input, ui: { resourceUri: VIEW, visibility: ['app'] } },
    ({ city }) => `${String(city)}: refreshed, ${(CITIES[String(city)] ?? 15) + 1} °C`,
  );
  return server;
}
