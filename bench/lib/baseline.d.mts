// Types of baseline.mjs, for the tests that import it.
import type { BenchSetup } from './setups.mjs';

export const BASELINE_KEY: 'keelBefore';

export interface BaselineInfo {
  ref: string;
  sha: string;
  short: string;
}

export function baselineSetup(info: { ref: string; short: string }, files?: Partial<BenchSetup>): BenchSetup;

export function removeBaseline(root: string, dir: string): void;

export function prepareBaseline(
  root: string,
  ref: string,
  options?: {
    log?: (message: string) => void;
    onCleanup?: (cleanup: () => void) => void;
    timeoutMs?: number;
  },
): Promise<{ setup: BenchSetup; info: BaselineInfo; dir: string; cleanup: () => void }>;
