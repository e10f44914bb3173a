// Not checkable: dies before reading anything, like a server with a missing config value
// (a stack trace on stderr, exit code 3).
function loadConfig() {
  throw new Error('DATABASE_URL is not set');
}
try {
  loadConfig();
} catch (error) {
  process.stderr.write(`${error.stack}\n`);
  process.exit(3);
}
