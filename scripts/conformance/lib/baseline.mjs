// The expected-failures file (the suite's own baseline format: `server: [...]`, `client: [...]`).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Checks a parsed baseline document and returns its two lists as sets.
 *
 * @example
 * toBaseline({ client: ['auth/basic-cimd'] }); // { server: Set(0), client: Set(1) }
 */
export function toBaseline(document, source = 'expected-failures') {
  const doc = document ?? {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new Error(`${source}: expected a mapping with server/client`);
  const unknown = Object.keys(doc).filter((key) => key !== 'server' && key !== 'client');
  if (unknown.length > 0)
    throw new Error(`${source}: unknown keys ${unknown.join(', ')} (only server and client)`);
  const list = (key) => {
    const value = doc[key] ?? [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.length === 0)) {
      throw new Error(`${source}: "${key}" must be a list of scenario names`);
    }
    return new Set(value);
  };
  return { server: list('server'), client: list('client') };
}

/**
 * Loads the baseline with the same YAML parser the suite uses (resolved from the installed suite
 * package, so the runner needs no dependency of its own). A missing file means "nothing expected".
 *
 * @example
 * const baseline = await loadBaseline('conformance/expected-failures.yml', suitePackageDir);
 */
export async function loadBaseline(path, suitePackageDir) {
  if (!existsSync(path)) return { server: new Set(), client: new Set() };
  const requireFromSuite = createRequire(join(suitePackageDir, 'package.json'));
  const { parse } = await import(pathToFileURL(requireFromSuite.resolve('yaml')).href);
  return toBaseline(parse(readFileSync(path, 'utf8')), path);
}
