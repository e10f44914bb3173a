import { McpServer } from 'keel-mcp/server';
import { serveStdio } from 'keel-mcp/stdio';
import { z } from 'zod';

const server = new McpServer({ name: 'weather', version: '1.0.0' });

server.tool(
  'forecast',
  {
    description: 'Forecast for a city',
    input: z.object({ city: z.string().min(1) }),
    output: z.object({ city: z.string(), tempC: z.number() }),
  },
  async ({ city }, ctx) => {
    await ctx.progress(1, 2, `looking up ${city}`);
    ctx.signal.throwIfAborted(); // aborted on cancel, disconnect or shutdown
    return { city, tempC: 21 }; // → structuredContent, plus a JSON text mirror
  },
);

server.resource('about', 'weather://about', { mimeType: 'text/plain' }, () => 'Forecasts by Keel');

server.prompt(
  'plan-trip',
  { description: 'Plan a day out', args: z.object({ city: z.string() }) },
  ({ city }) => `Plan a day in ${city}; check the forecast first.`,
);

await serveStdio(server); // settles once the client is gone and cleanup is done
