/**
 * The events the probe tools report (fixtures/probe-tools.mjs), collected in-process or parsed
 * from a stdio child's stderr, so tests await handler events instead of sleeping.
 */
import { within } from '../../helpers/guard.js';
import type { ProbeEvent } from '../fixtures/probe-tools.mjs';

export type { ProbeEvent };

const LINE_PREFIX = 'E2E ';

export class ProbeLog {
  readonly events: ProbeEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private partial = '';

  /** Record one event (the in-process `report` callback). */
  readonly record = (event: ProbeEvent): void => {
    this.events.push(event);
    for (const wake of [...this.waiters]) wake();
  };

  /** Feed a chunk of a stdio child's stderr; `E2E <json>` lines become events. */
  readonly feed = (text: string): void => {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith(LINE_PREFIX)) this.record(JSON.parse(line.slice(LINE_PREFIX.length)) as ProbeEvent);
    }
  };

  /** The `count`-th event of this kind (1-based), once it happened (bounded wait). */
  nth(kind: ProbeEvent['event'], count = 1, ms = 5_000): Promise<ProbeEvent> {
    let check = (): void => {};
    const waiting = new Promise<ProbeEvent>((resolve) => {
      check = () => {
        const event = this.events.filter((e) => e.event === kind)[count - 1];
        if (event) resolve(event);
      };
    });
    this.waiters.add(check);
    check();
    return within(waiting, ms, `probe event ${kind} #${count}`).finally(() => this.waiters.delete(check));
  }
}
