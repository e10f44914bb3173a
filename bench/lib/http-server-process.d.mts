// Types of http-server-process.mjs, for the tests that import it.
export class HttpServerProcess {
  static start(
    file: string,
    options?: { nodeArgs?: string[]; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<HttpServerProcess>;
  readonly pid: number;
  readonly port: number;
  stderrTail(): string;
  stop(graceMs?: number): Promise<{ code: number | null; signal: string | null }>;
}
