// Not checkable: answers every line with human text instead of JSON-RPC (a CLI tool, not a server).
import { createInterface } from 'node:readline';
process.stdout.write('Welcome to the calculator REPL! Type an expression.\n');
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => process.stdout.write(`? I did not understand "${line.slice(0, 40)}"\n`));
lines.on('close', () => process.exit(0));
