/**
 * What the store contracts (session, state, quota) share: a harness around one store instance,
 * and opening harnesses that are all closed after each test.
 */
import { afterEach } from 'vitest';

/** One store under a contract, with what the tests need of its backend. */
export interface StoreHarness<Store> {
  store: Store;
  /** Let `ms` pass on the store's clock (a fake clock, or real time for a server clock). */
  advance: (ms: number) => Promise<void>;
  /**
   * The time unit the tests scale by: small for a fake clock, large enough for real time that the
   * few milliseconds between two commands (and a busy machine) stay far below one unit.
   */
  unitMs: number;
  /** Every key in the backend with its TTL in ms (-1 = none): stores with keys only. */
  keyTtls?: () => Promise<Map<string, number>>;
  /** Stop and start the backend: stores with one only. `start` resolves once the client is ready. */
  backend?: { stop: () => Promise<void>; start: () => Promise<void> };
  close: () => Promise<void>;
}

/**
 * Call inside a contract's `describe`: `make()` opens a harness from `factory`; every harness
 * opened in a test is closed after it.
 */
export function harnesses<Harness extends { close: () => Promise<void> }>(
  factory: () => Promise<Harness>,
): () => Promise<Harness> {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close();
  });
  return async () => {
    const harness = await factory();
    open.push(harness);
    return harness;
  };
}
