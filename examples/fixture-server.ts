/**
 * The conformance fixture server: every tool, resource, template and prompt the official
 * conformance suite expects (see conformance-fixture.md §4), on one McpServer. Transport-free:
 * `fixture-stdio.ts` serves it over stdio, the HTTP example over Streamable HTTP.
 */
import { McpServer } from '../src/server/mcp-server.js';
import { registerContentTools } from './fixture/content-tools.js';
import { registerDiagnosticTools } from './fixture/diagnostic-tools.js';
import { registerInputRequiredTools } from './fixture/input-required-tools.js';
import { registerInteractiveTools } from './fixture/interactive-tools.js';
import { registerPrompts } from './fixture/prompts.js';
import { registerResources } from './fixture/resources.js';
import { registerSkills } from './fixture/skills.js';
import { registerTaskTools } from './fixture/task-tools.js';

/**
 * A fresh fixture server (one per process or per test).
 *
 * @example
 * const server = createFixtureServer();
 * await serveStdio(server);
 */
export function createFixtureServer(): McpServer {
  const server = new McpServer(
    { name: 'keel-fixture', version: '1.0.0', title: 'Keel conformance fixture' },
    { instructions: 'Conformance fixture: every tool, resource and prompt exists for testing.' },
  );
  registerContentTools(server);
  registerInteractiveTools(server);
  registerResources(server);
  registerPrompts(server);
  registerInputRequiredTools(server);
  registerDiagnosticTools(server);
  registerTaskTools(server);
  registerSkills(server);
  return server;
}
