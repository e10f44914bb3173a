// Readers for /proc/<pid>: server CPU time (utime + stime of the whole process, all threads)
// and memory (VmRSS, VmHWM). Linux only, which is what the benchmark runs on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of process `pid`, in microseconds. */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; fields after it are space separated, starting
  // with the state (field 3). utime is field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / clockTicks();
}

/** VmRSS and VmHWM of process `pid`, in bytes. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : NaN;
  };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** CPU model, core count — for the report header. */
export function machine() {
  let model = 'unknown';
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) model = match[1].trim();
  } catch {
    // not Linux: keep "unknown"
  }
  let memTotal = NaN;
  try {
    const match = /^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (match) memTotal = Number(match[1]) * 1024;
  } catch {
    // ignore
  }
  return { model, memTotal };
}
