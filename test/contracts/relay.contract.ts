/**
 * The contract every {@link Relay} keeps, run against each implementation (relay.memory.test.ts,
 * relay.redis.test.ts). Call `relayContract` in a test file that also calls `useProcessGuard()`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from 'keel-mcp/core';
import type { Relay } from 'keel-mcp/http';
import { within } from '../helpers/guard.js';

export interface RelayHarness {
  /** A new process's relay on the shared medium (not listening yet). */
  node(): Promise<Relay>;
  /** The process vanishes without `close()` (killed): its connections are dropped. */
  crash(relay: Relay): Promise<void>;
  /** The liveness window: a crashed process must read as gone after about this long. */
  livenessMs: number;
  /** Make the medium unreachable, and bring it back (`up` resolves once every connection is ready). */
  medium: { down: () => Promise<void>; up: () => Promise<void> };
  /** A hung medium (connections open, nothing answered): media with a server only. */
  freeze?: { freeze: () => void; thaw: () => void };
  /** Every key the relays left in the medium: media with keys only. */
  keys?: () => Promise<string[]>;
  close: () => Promise<void>;
}

/** What a node's listener received, in order. */
interface Inbox {
  messages: [from: string, text: string][];
  broadcasts: [from: string, text: string][];
  interrupted: number;
}

/** Poll `check` every 20 ms until it holds (bounded: at most `ms`). */
async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function relayContract(
  name: string,
  factory: () => Promise<RelayHarness>,
  /**
   * What the medium has: `interrupts` (reports lost connections), `freeze` (a server that can
   * hang), `keys` (state to leave behind). Cases for what a medium lacks are not registered at
   * all, so a run with every medium available skips nothing.
   */
  options: { interrupts?: boolean; freeze?: boolean; keys?: boolean } = {},
): void {
  describe(`Relay contract: ${name}`, () => {
    const open: { harness: RelayHarness; relays: Relay[] }[] = [];
    afterEach(async () => {
      for (const { harness, relays } of open.splice(0)) {
        for (const relay of relays) await within(relay.close(), 10_000, 'relay close');
        await harness.close();
      }
    });

    /** A harness and `count` listening nodes with their inboxes. */
    const setup = async (count: number, onMessage?: (text: string) => void) => {
      const harness = await factory();
      const entry = { harness, relays: [] as Relay[] };
      open.push(entry);
      const nodes: { relay: Relay; inbox: Inbox }[] = [];
      for (let i = 0; i < count; i++) {
        const relay = await harness.node();
        entry.relays.push(relay);
        const inbox: Inbox = { messages: [], broadcasts: [], interrupted: 0 };
        await relay.listen({
          message: (from, text) => {
            inbox.messages.push([from, text]);
            onMessage?.(text);
          },
          broadcast: (from, text) => void inbox.broadcasts.push([from, text]),
          interrupted: () => void inbox.interrupted++,
        });
        nodes.push({ relay, inbox });
      }
      return { harness, nodes, entry };
    };

    it('an addressed message reaches its target only, from the sender', async () => {
      const { nodes } = await setup(3);
      const [a, b, c] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
      await a.relay.send(b.relay.nodeId, 'for b');
      await until(() => b.inbox.messages.length === 1, 5_000, 'b receives');
      // Markers sent after it: had the message leaked to c or a, it would have arrived first.
      await a.relay.send(c.relay.nodeId, 'for c');
      await a.relay.send(a.relay.nodeId, 'for a');
      await until(() => c.inbox.messages.length >= 1 && a.inbox.messages.length >= 1, 5_000, 'markers');
      expect(b.inbox.messages).toEqual([[a.relay.nodeId, 'for b']]);
      expect(c.inbox.messages).toEqual([[a.relay.nodeId, 'for c']]);
      expect(a.inbox.messages).toEqual([[a.relay.nodeId, 'for a']]);
      expect([a, b, c].map((n) => n.inbox.broadcasts.length)).toEqual([0, 0, 0]);
    });

    it('keeps the order of 200 messages from one sender', async () => {
      const { nodes } = await setup(2);
      const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
      const texts = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(i) }));
      await Promise.all(texts.map((text) => a.relay.send(b.relay.nodeId, text)));
      await until(() => b.inbox.messages.length >= 200, 10_000, '200 messages');
      expect(b.inbox.messages.map(([, text]) => text)).toEqual(texts);
      expect(new Set(b.inbox.messages.map(([from]) => from))).toEqual(new Set([a.relay.nodeId]));
    });

    it('a broadcast reaches every other node once and not the sender', async () => {
      const { nodes } = await setup(3);
      const [a, b, c] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
      await a.relay.broadcast('hello all');
      await until(() => b.inbox.broadcasts.length === 1 && c.inbox.broadcasts.length === 1, 5_000, 'fan-out');
      // b answers after receiving: had a received its own broadcast, it would have come first.
      await b.relay.broadcast('marker');
      await until(() => a.inbox.broadcasts.length >= 1 && c.inbox.broadcasts.length === 2, 5_000, 'marker');
      expect(a.inbox.broadcasts).toEqual([[b.relay.nodeId, 'marker']]);
      expect(b.inbox.broadcasts).toEqual([[a.relay.nodeId, 'hello all']]);
      expect(c.inbox.broadcasts).toEqual([
        [a.relay.nodeId, 'hello all'],
        [b.relay.nodeId, 'marker'],
      ]);
      expect([a, b, c].map((n) => n.inbox.messages.length)).toEqual([0, 0, 0]);
    });

    it('alive: false before listen, true after, false right after close', async () => {
      const { harness, nodes, entry } = await setup(1);
      const observer = nodes[0]!.relay;
      const relay = await harness.node();
      entry.relays.push(relay);
      expect(await observer.alive(relay.nodeId)).toBe(false);
      await relay.listen({ message() {}, broadcast() {} });
      expect(await observer.alive(relay.nodeId)).toBe(true);
      expect(await relay.alive(observer.nodeId)).toBe(true);
      await relay.close();
      expect(await observer.alive(relay.nodeId)).toBe(false);
      await relay.close(); // idempotent
      expect(await observer.alive('never-started')).toBe(false);
    });

    it('send: true to a listening node; false to one that never listened, closed, or crashed', async () => {
      const { harness, nodes, entry } = await setup(3);
      const [a, b, c] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
      expect(await a.relay.send(b.relay.nodeId, 'to b')).toBe(true);
      expect(await a.relay.send(a.relay.nodeId, 'to self')).toBe(true);
      await until(() => b.inbox.messages.length === 1 && a.inbox.messages.length === 1, 5_000, 'delivered');
      const idle = await harness.node(); // made, never listening
      entry.relays.push(idle);
      expect(await a.relay.send(idle.nodeId, 'to idle')).toBe(false);
      expect(await a.relay.send('never-started', 'to nobody')).toBe(false);
      await c.relay.close();
      expect(await a.relay.send(c.relay.nodeId, 'to closed')).toBe(false);
      await harness.crash(b.relay);
      // The medium learns of a killed process when its connection drops: polled, bounded.
      await until(
        async () => !(await a.relay.send(b.relay.nodeId, 'to crashed')),
        harness.livenessMs + 3_000,
        'send to the crashed node reads false',
      );
      expect(await a.relay.send(b.relay.nodeId, 'to crashed, again')).toBe(false);
      expect(b.inbox.messages).toEqual([[a.relay.nodeId, 'to b']]);
      expect(a.inbox.messages).toEqual([[a.relay.nodeId, 'to self']]);
      expect(c.inbox.messages).toEqual([]);
    });

    it('a crashed node reads as gone within the liveness window and receives nothing', async () => {
      const { harness, nodes } = await setup(2);
      const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
      expect(await a.relay.alive(b.relay.nodeId)).toBe(true);
      await harness.crash(b.relay);
      // The window plus a margin for a busy machine; polled, so a fast medium passes fast.
      await until(async () => !(await a.relay.alive(b.relay.nodeId)), harness.livenessMs + 3_000, 'gone');
      await a.relay.send(b.relay.nodeId, 'lost'); // no error: at most once, to nobody
      expect(b.inbox.messages).toEqual([]);
    });

    it('while the medium is down every operation rejects with StoreUnavailableError; then it works again', async () => {
      const { harness, nodes } = await setup(2);
      const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
      const late = await harness.node();
      await harness.medium.down();
      await expect(a.relay.send(b.relay.nodeId, 'x')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(a.relay.broadcast('x')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(a.relay.alive(b.relay.nodeId)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(late.listen({ message() {}, broadcast() {} })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await late.close();
      await harness.medium.up();
      await a.relay.send(b.relay.nodeId, 'after');
      await until(() => b.inbox.messages.length === 1, 5_000, 'delivery after the outage');
      expect(b.inbox.messages).toEqual([[a.relay.nodeId, 'after']]);
      await until(() => a.relay.alive(b.relay.nodeId), harness.livenessMs + 3_000, 'b alive again');
      if (options.interrupts) {
        expect(a.inbox.interrupted).toBeGreaterThanOrEqual(1);
        expect(b.inbox.interrupted).toBeGreaterThanOrEqual(1);
      }
    });

    if (options.freeze)
      it('close is bounded when the medium hangs', async () => {
        const { harness, nodes } = await setup(1);
        if (!harness.freeze) throw new Error('the harness has no freeze()');
        const relay = nodes[0]!.relay;
        harness.freeze.freeze();
        try {
          await within(relay.close(), 8_000, 'close on a hung medium');
        } finally {
          harness.freeze.thaw();
        }
      });

    if (options.keys)
      it('after close nothing the relays made is left in the medium', async () => {
        const { harness, nodes } = await setup(2);
        if (!harness.keys) throw new Error('the harness has no keys()');
        expect((await harness.keys()).length).toBeGreaterThan(0);
        for (const { relay } of nodes) await relay.close();
        expect(await harness.keys()).toEqual([]);
      });

    it('a listener that throws does not stop delivery', async () => {
      let throws = 0;
      const { nodes } = await setup(2, (text) => {
        if (text.startsWith('boom')) {
          throws++;
          throw new Error('listener failure');
        }
      });
      const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
      // Sent together, so they tend to arrive in one read (a throw must not lose the rest of it).
      const texts = ['boom 1', 'fine', 'boom 2', 'fine again'];
      await Promise.all(texts.map((text) => a.relay.send(b.relay.nodeId, text)));
      await until(() => b.inbox.messages.length === 4, 5_000, 'all four');
      expect(b.inbox.messages.map(([, text]) => text)).toEqual(texts);
      expect(throws).toBe(2);
      await b.relay.broadcast('still up');
      await until(() => a.inbox.broadcasts.length === 1, 5_000, 'broadcast after');
    });
  });
}
