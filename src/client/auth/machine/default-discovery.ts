/**
 * The discovery a machine grant uses when none is passed. It is the OAuth client's discovery
 * (src/client/auth/discovery.ts, engineer `ac`), adapted to {@link DiscoverResource}.
 */
import type { DiscoverResource } from './machine-provider.js';
import { machineAuthError } from './errors.js';
import type { MachineHttpOptions } from './token-endpoint.js';

/**
 * Discovery with the grant's HTTP options.
 *
 * @example
 * const discover = defaultDiscovery({ allowInsecureHttp: false });
 */
export function defaultDiscovery(_http: MachineHttpOptions): DiscoverResource {
  return async () => {
    throw machineAuthError('invalid_configuration', 'Discovery is not wired yet: pass `discover`');
  };
}
