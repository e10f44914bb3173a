// Summarises a V8 .cpuprofile: self time per function (mapped back to TypeScript sources through
// the compiled files' source maps) and per area, as shares of the non-idle samples.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';

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
    const source = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : entry.originalSource;
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
  if (file.startsWith('src/') || file.startsWith('bench/')) return `Keel ${file.split('/').slice(0, 3).join('/')}`;
  return file === '' ? 'V8 / native (builtins)' : 'other';
}

/**
 * @returns {{ totalMs: number, top: {name, where, area, ms, share}[], areas: {area, ms, share}[] }}
 */
export function summariseProfile(path, root, topN = 15) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const functions = new Map();
  const areas = new Map();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') continue;
    const { file, where } = locate(node.callFrame, root);
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
  return { totalMs: total / 1000, top, areas: areaList };
}
