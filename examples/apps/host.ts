/**
 * The example host page (browser): a Keel McpClient over Streamable HTTP declares MCP Apps, finds
 * the tool with a UI, reads its ui:// resource, renders it in a sandboxed iframe with a CSP built
 * from the resource's metadata, and bridges the iframe to the server with ext-apps' AppBridge:
 * the app's tool calls go through this page (app-only tools included, model-only refused).
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { appsSupport, McpClient, modelTools, readApp, toolUi, type AppDocument } from 'keel-mcp/client';
import { StreamableHttpClientTransport } from 'keel-mcp/http';

const log = (line: string): void => {
  const item = document.createElement('li');
  item.textContent = line;
  document.getElementById('log')!.append(item);
};

/** The HTML with a CSP `<meta>` from `_meta.ui.csp`: nothing the server did not declare is allowed. */
function withCsp(app: AppDocument): string {
  const csp = app.ui.csp ?? {};
  const list = (domains: string[] | undefined, fallback: string): string =>
    domains && domains.length > 0 ? domains.join(' ') : fallback;
  const policy = [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${list(csp.resourceDomains, '')}`.trim(),
    `style-src 'unsafe-inline' ${list(csp.resourceDomains, '')}`.trim(),
    `img-src data: ${list(csp.resourceDomains, '')}`.trim(),
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'self'")}`,
  ].join('; ');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  return app.html.includes('<head>') ? app.html.replace('<head>', `<head>${meta}`) : meta + app.html;
}

async function main(): Promise<void> {
  const client = new McpClient({ name: 'keel-example-host', version: '1.0.0' }).extend(appsSupport());
  await client.connect(new StreamableHttpClientTransport(new URL('/mcp', location.href)));
  log(`connected (${client.era ?? '?'} era)`);
  const tools = await client.listAllTools();
  document.getElementById('model-tools')!.textContent = modelTools(tools)
    .map((tool) => tool.name)
    .join(', ');
  const tool = tools.find((candidate) => toolUi(candidate)?.forModel && toolUi(candidate)?.resourceUri);
  if (tool === undefined) throw new Error('no tool with a UI');
  const app = await readApp(client, toolUi(tool)!.resourceUri!);
  log(`rendering ${app.uri} for tool ${tool.name}`);

  const iframe = document.createElement('iframe');
  iframe.sandbox.add('allow-scripts'); // no allow-same-origin: the app gets an opaque origin
  iframe.title = tool.name;
  document.getElementById('app')!.append(iframe);

  const bridge = new AppBridge(null, { name: 'keel-example-host', version: '1.0.0' }, { serverTools: {} });
  bridge.oncalltool = async (params) => {
    const target = tools.find((candidate) => candidate.name === params.name);
    if (target === undefined || toolUi(target)?.forApp === false)
      throw new Error(`${params.name} is not callable from the app`);
    log(`app calls ${params.name}`);
    return await client.callTool(params.name, params.arguments ?? {});
  };
  bridge.oninitialized = () => {
    const args = { city: 'Oslo' };
    void bridge.sendToolInput({ arguments: args });
    void client.callTool(tool.name, args).then((result) => bridge.sendToolResult(result as never));
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = withCsp(app);
}

main().catch((error: unknown) => log(`error: ${error instanceof Error ? error.message : String(error)}`));
