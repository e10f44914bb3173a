#!/usr/bin/env node
/**
 * The `keel` executable. Everything else (commander, the client, the prompt library) is loaded
 * from here on demand, so no keel-mcp library entry point ever loads the CLI's dependencies.
 */
const { main } = await import('./main.js');
const code = await main(process.argv.slice(2));
// Flush stdout (async on some pipes), then exit: a stdin left readable must not keep us alive.
process.stdout.write('', () => process.exit(code));
