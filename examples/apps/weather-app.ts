/**
 * The MCP App of the weather example (runs in the host's sandboxed iframe): it shows the forecast
 * the host hands it (`ontoolresult`), then calls the server's app-only `refresh` tool through the
 * host (`callServerTool`) and shows that answer too. Bundled and inlined into the ui:// resource
 * by bundle.ts.
 */
import { App } from '@modelcontextprotocol/ext-apps';

type Result = { content?: { type: string; text?: string }[] };

const textOf = (result: Result): string =>
  (result.content ?? []).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('\n');

const forecast = document.getElementById('forecast')!;
const refreshed = document.getElementById('refreshed')!;
const app = new App({ name: 'keel-weather-view', version: '1.0.0' });

app.ontoolresult = (result) => {
  forecast.textContent = textOf(result);
  void app
    .callServerTool({ name: 'refresh', arguments: { city: 'Oslo' } })
    .then((answer) => (refreshed.textContent = textOf(answer as Result)))
    .catch((error: unknown) => (refreshed.textContent = `refresh failed: ${String(error)}`));
};

await app.connect();
