/**
 * The process behind a local HTTP server, for `keel doctor`'s memory sample (issue 29): found
 * through Linux's /proc (the socket listening on the port, then the process holding it). Anywhere
 * else, or for a process of another user, nothing is found and the check runs without it.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The inodes of the sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT; state 0A is LISTEN; the inode is the tenth field.
      const local = fields[1];
      if (!local || fields[3] !== '0A' || fields[9] === undefined) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/**
 * The id of the process listening on TCP `port` on this machine, if /proc shows it.
 *
 * @example
 * const pid = listeningPid(3000); // undefined off Linux, or for another user's process
 */
export function listeningPid(port: number): number | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith('socket:[') && inodes.has(link.slice(8, -1))) return Number(pid);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return undefined;
}

/**
 * The resident set size of process `pid` in bytes, if /proc shows it.
 *
 * @example
 * const before = residentBytes(pid);
 */
export function residentBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
