// Summarises a V8 .cpuprofile: self time per function (mapped back to TypeScript sources through
// the compiled files' source maps) and per area, as shares of the non-idle samples.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, relative, resolve } from 'node:path';

const maps = new Map();
function sourceMapFor(url) {
  if (!maps.has(url)) {
    let map;
    try {
      const file = fileURLToPath(url);
      if (existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** Where a call frame lives, as `file:line` relative to `root` (TypeScript source when mapped). */
function locate(frame, root) {
  const { url, lineNumber, columnNumber } = frame;
  if (!url) return { file: '', where: '' };
  if (!url.startsWith('file:')) return { file: url, where: `${url}:${lineNumber + 1}` };
  const map = sourceMapFor(url);
  const entry = map?.findEntry(lineNumber, columnNumber);
  if (entry && entry.originalSource) {
    const source = entry.originalSource.startsWith('file:')
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(fileURLToPath(url)), entry.originalSource);
    const file = relative(root, source);
    return { file, where: `${file}:${entry.originalLine + 1}` };
  }
  const file = relative(root, fileURLToPath(url));
  return { file, where: `${file}:${lineNumber + 1}` };
}

function area(file, name) {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)' || name === '(root)') return 'V8 / native (program)';
  if (file.startsWith('node:')) return 'Node.js internals';
  if (file.includes('node_modules/')) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file.slice(file.lastIndexOf('node_modules/')));
    return `dependency ${match ? match[1] : '?'}`;
  }
  if (file.startsWith('src/') || file.startsWith('bench/'))
    return `Keel ${file.split('/').slice(0, 3).join('/')}`;
  return file === '' ? 'native (V8 builtins, bindings, syscalls)' : 'other';
}

/**
 * Only samples inside `ranges` (monotonic-clock microseconds, the clock of both V8's profile
 * timestamps and `process.hrtime`) count, so start-up and module loading stay out; without
 * matching samples every sample counts.
 *
 * @returns {{ totalMs: number, windowed: boolean, top: {name, where, area, ms, share}[], areas: {area, ms, share}[] }}
 */
export function summariseProfile(path, root, { topN = 15, ranges = [] } = {}) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const collect = (inRange) => {
    const self = new Map();
    let time = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      const delta = profile.timeDeltas[i] ?? 0;
      time += delta;
      if (!inRange(time)) continue;
      const id = profile.samples[i];
      self.set(id, (self.get(id) ?? 0) + delta);
    }
    return self;
  };
  let selfUs = ranges.length ? collect((t) => ranges.some(([from, to]) => t >= from && t <= to)) : new Map();
  const windowed = selfUs.size > 0;
  if (!windowed) selfUs = collect(() => true);
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const located = new Map();
  const place = (node) => {
    if (!located.has(node.id)) located.set(node.id, locate(node.callFrame, root));
    return located.get(node.id);
  };
  const isKeel = (file) => file.startsWith('src/') || file.startsWith('bench/servers/');
  // Time below the innermost Keel frame (its own plus the Node/V8 work it called).
  const keelCallers = new Map();
  const functions = new Map();
  const areas = new Map();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') continue;
    const { file, where } = place(node);
    let caller = node;
    while (caller && !isKeel(place(caller).file)) caller = byId.get(parent.get(caller.id));
    const callerKey = caller
      ? `${caller.callFrame.functionName || '(anonymous)'} ${place(caller).where}`
      : '(no Keel frame on the stack: I/O callbacks, GC, start-up)';
    keelCallers.set(callerKey, (keelCallers.get(callerKey) ?? 0) + us);
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { name, where, area: area(file, name), us: 0 };
    entry.us += us;
    functions.set(key, entry);
    areas.set(entry.area, (areas.get(entry.area) ?? 0) + us);
    total += us;
  }
  const top = [...functions.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, topN)
    .map((entry) => ({ ...entry, ms: entry.us / 1000, share: entry.us / total }));
  const areaList = [...areas]
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => ({ area: name, ms: us / 1000, share: us / total }));
  const callers = [...keelCallers]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([key, us]) => ({ key, ms: us / 1000, share: us / total }));
  return { totalMs: total / 1000, windowed, top, areas: areaList, callers };
}
