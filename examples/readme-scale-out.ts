import { createClient } from '@redis/client';
import { serveHttp } from 'keel-mcp/node';
import { redisBackplane } from 'keel-mcp/redis';
import { McpServer } from 'keel-mcp/server';

const server = new McpServer({ name: 'weather', version: '1.0.0' });
server.tool('forecast', { description: 'Forecast for Paris' }, () => 'Sunny, 21 °C');

// Fail fast while Redis is down (no offline queue); node-redis reconnects by itself.
const redis = createClient({
  url: process.env.REDIS_URL ?? 'redis://localhost:6379',
  disableOfflineQueue: true,
});
redis.on('error', (error: Error) => console.error('redis:', error.message)); // required
await redis.connect();

// Same namespace, same tools on every process; a session's requests may land on any of them.
const serving = await serveHttp(server, {
  port: Number(process.env.PORT ?? 3000),
  backplane: redisBackplane({ client: redis, namespace: 'weather' }),
});
process.once('SIGTERM', () => void serving.close().finally(() => redis.close()));
