// Types of modern-driver.mjs, for the tests that import it.
import type { HttpTarget } from './http-driver.mjs';

/** Polls of one task before `taskRoundTrip()` fails. */
export const MAX_POLLS: number;

export class ModernClient {
  constructor(target: HttpTarget);
  nextId: number;
  /** `tasks/get` requests sent by `taskRoundTrip()` so far. */
  polls: number;
  /** POST one request; resolves with the message answering `id` (throws on another status). */
  send(body: string, headers: Record<string, string>, id: number): Promise<Record<string, unknown>>;
  /** One checked modern `echo`. */
  echo(): Promise<void>;
  /** One checked `input_required` round trip of `wait_sampling`. */
  roundTrip(): Promise<void>;
  /** One checked task round trip of `echo_task`: the call (a task), then `tasks/get` until completed. */
  taskRoundTrip(): Promise<void>;
}
