// Not an MCP server: an ordinary web server on 127.0.0.1 (port in $PORT, 0 = any) that answers
// every request, POST included, with an HTML page and 200. Prints its /mcp URL on stdout.
import { createServer } from 'node:http';
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1></body></html>\n');
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
