/* global Response */
// workerd smoke worker (module syntax), bundled by workerd.mjs into one ES module. One handler per
// isolate, created on the first request: workerd forbids timers and I/O at global scope, and the
// handler's session sweeper is a timer.
import { createSmokeHandler } from './app.mjs';

let handler;

export default {
  fetch(request, _env, ctx) {
    // What the launcher polls until workerd serves (creates no handler).
    if (new URL(request.url).pathname === '/ready') return new Response('ready');
    // Stateless: a legacy session's objects would be reused across requests, which workerd cancels.
    // workerd notices a client that left only when the next write to its stream fails, so a short
    // keep-alive bounds how long an abandoned handler runs (docs/runtimes.md).
    handler ??= createSmokeHandler('workerd', { sessions: false, keepAliveMs: 250 });
    // The ExecutionContext as is: work Keel detaches from the Response goes to ctx.waitUntil.
    return handler(request, ctx);
  },
};
