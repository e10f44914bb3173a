/**
 * A started Connection over a linked pair of recording memory transports, with a raw peer on the
 * other end, and a way to watch a request settle without awaiting it (tests with faked timers).
 */
import { Connection } from 'keel-mcp/core';
import { MemoryTransport } from 'keel-mcp/memory';
import { RecordingTransport } from '../../helpers/recording-transport.js';
import { RawPeer } from './raw-peer.js';

/** @example const { connection, peer } = connectionPair(); */
export function connectionPair(): { connection: Connection; local: RecordingTransport; peer: RawPeer } {
  const local = new RecordingTransport();
  const remote = new RecordingTransport();
  MemoryTransport.link(local, remote);
  const connection = new Connection(local);
  void connection.start();
  return { connection, local, peer: new RawPeer(remote) };
}

/** Track a request's outcome without awaiting it. @example const call = track(connection.request('x')); */
export function track(promise: Promise<unknown>): { outcome: unknown; settled: boolean } {
  const state = { outcome: undefined as unknown, settled: false };
  promise.then(
    (value) => Object.assign(state, { outcome: value, settled: true }),
    (error: unknown) => Object.assign(state, { outcome: error, settled: true }),
  );
  return state;
}
