/**
 * The rule for a task whose process died: its record says `working` (or `input_required`)
 * forever unless someone notices the lease ran out. Applied wherever a record is read.
 */
import { ErrorCode } from '../../core/errors.js';
import { isTerminal } from './memory-task-store.js';
import type { TaskRecord } from './task-store.js';

/** The message of a task whose runner stopped renewing its lease. */
export const RUNNER_STOPPED = 'The process running this task stopped';

/**
 * The record as clients must see it: a task not terminal whose lease passed is `failed`
 * ({@link RUNNER_STOPPED}); any other record as it is. `patch` is what to write back (undefined
 * when nothing changes).
 *
 * @example
 * const { view, patch } = withLeaseRule(record, Date.now());
 * if (patch) await store.update(record.id, patch);
 */
export function withLeaseRule(
  record: TaskRecord,
  now: number,
): {
  view: TaskRecord;
  patch?: Pick<TaskRecord, 'status' | 'statusMessage' | 'error'> & { inputRequests: undefined };
} {
  if (isTerminal(record.status) || record.leaseUntil === undefined || record.leaseUntil > now)
    return { view: record };
  const patch = {
    status: 'failed' as const,
    statusMessage: RUNNER_STOPPED,
    error: { code: ErrorCode.InternalError, message: RUNNER_STOPPED },
    inputRequests: undefined,
  };
  const view: TaskRecord = {
    ...record,
    status: patch.status,
    statusMessage: patch.statusMessage,
    error: patch.error,
  };
  delete (view as { inputRequests?: unknown }).inputRequests;
  return { view, patch };
}
