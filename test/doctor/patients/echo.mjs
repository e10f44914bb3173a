// Not an MCP server: writes every line back unchanged, like `cat` (so doctor's own initialize
// request comes back to it as a request, not an answer).
process.stdin.pipe(process.stdout);
process.stdin.on('end', () => process.exit(0));
