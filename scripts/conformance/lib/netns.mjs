// Loopback-only network namespace for the client suite: its mock servers bind every interface, so
// running it inside `unshare -n` keeps them (and the client under test) off any real network.
import { spawnSync } from 'node:child_process';

const SETUP = 'ip link set lo up';

/**
 * Finds a working way to enter a fresh network namespace with loopback up: `unshare -n` as root,
 * `unshare -r -n` (a user namespace) otherwise. Returns the unshare flags, or a reason it cannot.
 *
 * @example
 * const ns = detectLoopbackNamespace();
 * if (ns.flags) console.log('isolated'); else console.log(ns.reason);
 */
export function detectLoopbackNamespace() {
  if (process.platform !== 'linux') return { reason: 'network namespaces need Linux' };
  const attempts = [];
  for (const flags of [['-n'], ['-r', '-n']]) {
    const probe = spawnSync('unshare', [...flags, 'sh', '-c', SETUP], { encoding: 'utf8', timeout: 10_000 });
    if (probe.error?.code === 'ENOENT') return { reason: '`unshare` not found (Debian package util-linux)' };
    if (probe.status === 0) return { flags };
    attempts.push(
      `unshare ${flags.join(' ')}: ${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()}`,
    );
  }
  const noIp = attempts.some((line) => /ip: (not found|No such file)/.test(line));
  return {
    reason: noIp ? '`ip` not found (Debian package iproute2)' : `unshare failed (${attempts.join('; ')})`,
  };
}

/**
 * Wraps a command so it runs inside the loopback-only namespace; arguments pass through "$@" so
 * nothing is re-quoted.
 *
 * @example
 * const [cmd, args] = wrapInNamespace(['-n'], node22, ['suite.js', 'client']);
 */
export function wrapInNamespace(flags, command, args) {
  return ['unshare', [...flags, 'sh', '-c', `${SETUP} && exec "$@"`, 'sh', command, ...args]];
}
