/**
 * MCP Apps on the client (a host): see docs/apps.md.
 */
export { appsSupport } from './apps-support.js';
export { modelTools, toolUi, type ToolUi } from './tool-ui.js';
export { listAppResources, readApp, type AppDocument } from './read-app.js';
