// Typed loader for the runtime runner's plain-JS modules (scripts/runtimes/**/*.mjs live outside the
// TypeScript project, so the tests state the shape they rely on).
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export type StepResult = { step: string; ok: boolean | 'n/a'; detail: string };

export interface DriveModule {
  STEPS: string[];
  driveSmoke: (
    url: string,
    options?: { sessions?: boolean; abortPollTries?: number },
  ) => Promise<StepResult[]>;
}

export interface MatrixModule {
  formatMatrix: (rows: { runtime: string; version: string; results?: StepResult[]; error?: string }[]) => {
    text: string;
    ok: boolean;
  };
}

export interface InstallModule {
  RUNTIMES: Record<string, { pkg: string; version: string; entry: string }>;
  ensureRuntime: (
    cacheDir: string,
    name: string,
    options: { logDir: string; log?: (line: string) => void },
  ) => Promise<string>;
}

export interface ServerHandle {
  child: { pid?: number };
  exited: Promise<unknown>;
}

export interface LaunchModule {
  commandFor: (
    name: string,
    bin: string,
    paths: { root: string; cacheDir: string; server?: string },
  ) => { command: string; args: string[] };
  startServer: (
    launch: { command: string; args: string[] },
    options: { cwd: string; logFile: string; timeoutMs: number },
  ) => Promise<{ handle: ServerHandle; url: string }>;
}

export interface SmokeAppModule {
  createSmokeServer: (runtime: string) => { server: import('keel-mcp/server').McpServer };
}

/** Imports `scripts/runtimes/<path>` typed as `T`. */
export async function loadRuntimeModule<T>(path: string): Promise<T> {
  return (await import(pathToFileURL(resolve(repoRoot, 'scripts', 'runtimes', path)).href)) as T;
}
