// Types of report.mjs, for the tests that import it.
import type { BenchSetup, ImportEntry } from './setups.mjs';

export interface ReportInput {
  info: {
    model: string;
    memTotal: number;
    cores: number;
    node: string;
    reps: number;
    scale: number;
    durationS: number;
    date: string;
    loads: { phase: string; load: number }[];
    /** BENCH_BASELINE: the ref the `keelBefore` setup was built from. */
    baseline?: { ref: string; sha: string; short: string };
  };
  servers: BenchSetup[];
  entries: ImportEntry[];
  /** results[metric][setupKey]: one value per repetition (or samples). */
  results: Record<string, Record<string, number[]>>;
  errors: { phase: string; server: string; rep: number; message: string }[];
  modules: Record<string, { files: number; bytes: number; gzip: number; packages: string[] }>;
  profiles: unknown[];
  /** Setups left out of the run (their runtime could not be installed), with the reason. */
  skipped?: { key: string; label: string; reason: string }[];
}

export function writeReport(path: string, input: ReportInput): Promise<void>;
