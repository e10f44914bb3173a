/**
 * The `data` of a legacy session's shared record (issues 12 and 28): who serves the session now,
 * whose it is, and what another process needs to carry it on. JSON, read by every process of a
 * deployment, so a field this version does not know is ignored and a record it cannot read is
 * routed as before (to its owner) but never adopted.
 */
import { isSessionSnapshot, type SessionSnapshot } from '../../../server/session-snapshot.js';
import type { SessionRecord } from '../session-store.js';

/**
 * A parsed record.
 *
 * @example
 * const data = parseRecordData(record); // { owner: 'node-a', principal: 'sub:alice', snapshot: {...} }
 */
export interface RecordData {
  /** The process holding the session; `null` once its owner handed it over (anyone may adopt it). */
  readonly owner: string | null;
  /** With auth on: the principal whose token created the session (only it may use the session). */
  readonly principal?: string | undefined;
  /** The session's portable state; absent before its handshake was answered. */
  readonly snapshot?: SessionSnapshot | undefined;
}

/**
 * The record's data, or undefined (no record, or data this version cannot read).
 *
 * @example
 * const owner = parseRecordData(await sessions.get(id))?.owner;
 */
export function parseRecordData(record: SessionRecord | undefined): RecordData | undefined {
  if (record?.data === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(record.data);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { owner, p, s } = raw as { owner?: unknown; p?: unknown; s?: unknown };
  if (typeof owner !== 'string' && owner !== null) return undefined;
  return {
    owner,
    principal: typeof p === 'string' ? p : undefined,
    snapshot: isSessionSnapshot(s) ? s : undefined,
  };
}

/**
 * The text of a record's data.
 *
 * @example
 * sessions.swap(id, previous, recordDataText({ owner: relay.nodeId, snapshot }));
 */
export function recordDataText(data: RecordData): string {
  const out: { owner: string | null; p?: string; s?: SessionSnapshot } = { owner: data.owner };
  if (data.principal !== undefined) out.p = data.principal;
  if (data.snapshot !== undefined) out.s = data.snapshot;
  return JSON.stringify(out);
}
