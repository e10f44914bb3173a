// Types of runtime-setups.mjs, for the tests that import it.
import type { BenchSetup } from './setups.mjs';
import type { ServerLaunch } from './http-server-process.mjs';

/** A setup after preparation: a runtime setup's phase files are launch commands. */
export type PreparedSetup = Omit<BenchSetup, 'http' | 'stateless' | 'modern'> & {
  http?: string | ServerLaunch;
  stateless?: string | ServerLaunch;
  modern?: string | ServerLaunch;
};

export function prepareRuntimeSetups(
  servers: BenchSetup[],
  options: {
    root: string;
    log?: (line: string) => void;
    ensure?: (
      cacheDir: string,
      name: string,
      options: { logDir: string; log: (line: string) => void },
    ) => Promise<string>;
  },
): Promise<{ servers: PreparedSetup[]; skipped: { key: string; label: string; reason: string }[] }>;
