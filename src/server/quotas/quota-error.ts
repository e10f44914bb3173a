/** The one refusal of a call over its quota: `-32011` with the limit and when to retry. */
import { ErrorCode, McpError } from '../../core/errors.js';

/**
 * The `-32011` error for a call refused by `limit` (`'rate'`, `'tool:<name>'`, `'concurrent'`,
 * `'tasks'`); `data` is `{ limit, retryAfterMs }`, which the HTTP host turns into 429 and
 * `Retry-After`.
 *
 * @example
 * throw quotaExceeded('rate', 600, '100 calls per 60000 ms');
 */
export function quotaExceeded(limit: string, retryAfterMs: number, what: string): McpError {
  return new McpError(ErrorCode.QuotaExceeded, `Quota exceeded: ${what}; retry in ${retryAfterMs} ms`, {
    limit,
    retryAfterMs,
  });
}

/**
 * Whether `error` is the task manager's refusal of one more running task for this owner
 * (`tasks.maxPerOwner`), which the quotas interceptor answers in its own shape.
 *
 * @example
 * if (isTaskOwnerLimit(error)) throw quotaExceeded('tasks', 1_000, 'too many running tasks');
 */
export function isTaskOwnerLimit(error: unknown): error is McpError {
  if (!(error instanceof McpError) || error.code !== ErrorCode.ServerBusy) return false;
  const data = error.data as { limit?: unknown } | undefined;
  return data?.limit === 'tasks.maxPerOwner';
}
