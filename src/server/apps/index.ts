/**
 * MCP Apps on the server (`io.modelcontextprotocol/ui`, SEP-1865): see docs/apps.md.
 */
export { apps, callerSupportsApps } from './apps-extension.js';
export { appResource, type AppResourceConfig, type AppResourceReader } from './app-resource.js';
export { appTool, type AppToolConfig } from './app-tool.js';
