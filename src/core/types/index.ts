/**
 * MCP protocol types (2025-11-25 schema), by area.
 */
export * from './common.js';
export * from './content.js';
export * from './tools.js';
export * from './resources.js';
export * from './prompts.js';
export * from './sampling.js';
export * from './elicitation.js';
export * from './roots.js';
export * from './logging.js';
export * from './completion.js';
export * from './capabilities.js';
export * from './modern.js';
export * from './subscriptions.js';
