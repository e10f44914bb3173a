// Tools the official-v2-client interop suite needs beside the conformance fixture's (which has no
// structured-output tool and no way to tell which era served a request). Plain JS so the same code
// runs in-process (HTTP tests) and in the stdio child (interop-stdio-server.mjs).
//   interop_weather   structured output: { city, tempC } under an output schema
//   interop_era       the protocol version and client name this request was served under, as
//                     the handler sees them (2026-07-28: from the request's own _meta)

export const WEATHER_OUTPUT = {
  type: 'object',
  properties: { city: { type: 'string' }, tempC: { type: 'number' } },
  required: ['city', 'tempC'],
};

export function registerInteropTools(server) {
  server.tool(
    'interop_weather',
    {
      description: 'The weather in a city, as structured content',
      input: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      output: WEATHER_OUTPUT,
    },
    ({ city }) => ({ city, tempC: city.length }),
  );

  server.tool(
    'interop_era',
    { description: 'Reports the protocol version and client this request was served for' },
    (_args, ctx) =>
      JSON.stringify({
        protocolVersion: ctx.session.protocolVersion,
        client: ctx.clientInfo?.name ?? null,
      }),
  );
}
