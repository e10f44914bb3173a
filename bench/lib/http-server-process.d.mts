// Types of http-server-process.mjs, for the tests that import it.
/** A server run by another runtime: `command ...args <port>`, `file` naming it in errors. */
export interface ServerLaunch {
  command: string;
  args: string[];
  file: string;
}

export class HttpServerProcess {
  static start(
    target: string | ServerLaunch,
    options?: { nodeArgs?: string[]; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<HttpServerProcess>;
  readonly pid: number;
  readonly port: number;
  stderrTail(): string;
  stop(graceMs?: number): Promise<{ code: number | null; signal: string | null }>;
}
