/** Whether the quota store answers: an outage is logged once when it starts and once when it ends. */
import type { Logger } from '../../core/engine/connection-types.js';

/**
 * @example
 * const health = new StoreHealth(logger, 'allow');
 * store.admit(request).then(() => health.ok(), (e) => health.failed('admit', e));
 */
export class StoreHealth {
  private down = false;

  constructor(
    private readonly logger: Pick<Logger, 'error'>,
    private readonly whenStoreFails: 'allow' | 'refuse',
  ) {}

  ok(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.error('quotas: the quota store answers again; limits apply again');
  }

  failed(operation: string, error: unknown): void {
    if (this.down) return;
    this.down = true;
    const meanwhile =
      this.whenStoreFails === 'allow'
        ? 'counted calls are served without limits'
        : 'counted calls are refused';
    this.logger.error(
      `quotas: the quota store failed (${operation}); ${meanwhile} until it answers again`,
      error,
    );
  }
}

/** The default logger: stderr, the one place a server's own diagnostics go. */
export const STDERR_LOGGER: Pick<Logger, 'error'> = {
  error(message: string, detail?: unknown): void {
    if (detail === undefined) console.error(message);
    else console.error(message, detail);
  },
};
