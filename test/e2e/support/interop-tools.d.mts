import type { McpServer } from 'keel-mcp/server';

/** The output schema of `interop_weather`. */
export const WEATHER_OUTPUT: Record<string, unknown>;

export function registerInteropTools(server: McpServer): void;
