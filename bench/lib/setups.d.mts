// Types of setups.mjs, for the tests that import it.
export interface BenchSetup {
  key: string;
  label: string;
  what: string;
  stdio?: string;
  http?: string;
  stateless?: string;
  /** 2026-07-28 requests over HTTP (no session, no handshake). */
  modern?: string;
  memory?: boolean;
  sampling?: boolean;
  /** Its 2026-07-28 server has the task tool `echo_task`: the task round trip is measured. */
  tasks?: boolean;
  /** Served by this runtime (installed by scripts/runtimes) instead of this Node. */
  runtime?: 'bun' | 'deno';
}

export interface ImportEntry {
  key: string;
  label: string;
  specifier: string;
}

export function benchSetups(root: string): {
  pkg: { scripts: Record<string, string> };
  servers: BenchSetup[];
  entries: ImportEntry[];
};
