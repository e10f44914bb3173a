/* global Response */
// workerd smoke worker (module syntax), bundled by workerd.mjs into one ES module. One handler per
// isolate, created on the first request: workerd forbids timers and I/O at global scope, and the
// handler's session sweeper is a timer.
import { McpServer } from '../../../dist/src/server/index.js';
import { createSmokeHandler } from './app.mjs';

let handler;

// Registering a resource template compiles its matcher with `Function(...)` (uri-template-lite);
// workerd forbids code generation from strings. Reported so the runner can show what happens.
function templateProbe() {
  try {
    new McpServer({ name: 'probe', version: '1.0.0' }).resourceTemplate('t', 'test://{id}', {}, () => 'x');
    return 'resourceTemplate: registered';
  } catch (error) {
    return `resourceTemplate: ${error?.name}: ${error?.message}`;
  }
}

export default {
  fetch(request) {
    if (new URL(request.url).pathname === '/probe') return new Response(templateProbe());
    // Stateless: a legacy session's objects would be reused across requests, which workerd cancels.
    // workerd notices a client that left only when the next write to its stream fails, so a short
    // keep-alive bounds how long an abandoned handler runs (docs/runtimes.md).
    handler ??= createSmokeHandler('workerd', { sessions: false, keepAliveMs: 250 });
    return handler(request); // not the worker's (env, ctx): Keel's second argument is { authInfo }
  },
};
