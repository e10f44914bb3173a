/** The Relay contract against MemoryRelayHub (several "processes" in one). */
import { MemoryRelayHub } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';
import { relayContract } from './relay.contract.js';

useProcessGuard();

relayContract('MemoryRelayHub', () => {
  const hub = new MemoryRelayHub();
  return Promise.resolve({
    node: () => Promise.resolve(hub.node()),
    crash: (relay) => Promise.resolve(hub.crash(relay.nodeId)),
    livenessMs: 0,
    medium: {
      down: () => Promise.resolve(void (hub.down = true)),
      up: () => Promise.resolve(void (hub.down = false)),
    },
    close: () => Promise.resolve(),
  });
});
