#!/usr/bin/env node
/**
 * The public API report: one file per package.json `exports` entry point under api/, written by
 * API Extractor from the built declarations (dist/src/**\/*.d.ts, so run `npm run build` first).
 * The reports are committed: a change to what Keel exports, or to the signature of anything it
 * exports, is a diff of api/*.api.md in review.
 *
 *   node scripts/api-report.mjs           # check: exit 1 if a report differs from api/ (CI, npm test)
 *   node scripts/api-report.mjs --update  # write the reports to api/ (npm run api:update)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT_FOLDER = join(ROOT, 'api');

/**
 * The report's base name of an entry point: `keel-mcp` for `.`, `keel-mcp.server` for `./server`.
 *
 * @example
 * reportName('./http'); // 'keel-mcp.http'
 */
export function reportName(subpath) {
  return subpath === '.' ? 'keel-mcp' : `keel-mcp.${subpath.slice(2)}`;
}

/** Every `exports` entry of package.json with the declaration file it points at. */
function entryPoints() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports).map(([subpath, target]) => ({
    subpath,
    name: reportName(subpath),
    types: join(ROOT, target.types),
  }));
}

/** API Extractor's configuration for one entry point (no doc model, no .d.ts rollup). */
function configFor(entry, tempFolder) {
  return {
    projectFolder: ROOT,
    mainEntryPointFilePath: entry.types,
    compiler: {
      // The declarations alone, resolved as a user's NodeNext project would resolve them.
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          strict: true,
          skipLibCheck: true,
        },
        files: [entry.types],
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.name,
      reportFolder: REPORT_FOLDER,
      reportTempFolder: tempFolder,
      // A type the entry does not export but its signatures use (the base class of an exported
      // class, an option type from another entry) is part of what a user compiles against: the
      // report shows it too, so a change to it is a visible diff as well.
      includeForgottenExports: true,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: 'lf',
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // Keel marks nothing @public/@beta: everything an entry exports is public.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
        // Shown in the report as a `declare` without `export` (includeForgottenExports); the warning
        // itself would add the .d.ts line number, which changes with every unrelated edit.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        // Members without JSDoc are marked "(undocumented)" in the report; check-jsdoc.mjs checks the
        // exports themselves.
        'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        // `{@link member}` is meant for readers of the source, not resolved against the package.
        'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
      },
      // JSDoc is checked by scripts/check-jsdoc.mjs; API Extractor's TSDoc dialect is stricter.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
}

/** The lines a changed report lost and gained (a hint for the reader; `git diff` after an update is exact). */
function lineChanges(name, tempFolder) {
  const read = (folder) => readFileSync(join(folder, `${name}.api.md`), 'utf8').split('\n');
  const committed = existsSync(join(REPORT_FOLDER, `${name}.api.md`)) ? read(REPORT_FOLDER) : [];
  const built = read(tempFolder);
  const before = new Set(committed);
  const after = new Set(built);
  const lines = [
    ...committed.filter((line) => !after.has(line)).map((line) => `- ${line}`),
    ...built.filter((line) => !before.has(line)).map((line) => `+ ${line}`),
  ];
  const shown = lines.slice(0, 20).join('\n');
  return `api/${name}.api.md:\n${shown}${lines.length > 20 ? `\n... (${lines.length - 20} more)` : ''}`;
}

/**
 * Runs API Extractor on every entry point. With `update`, writes the reports to api/; without,
 * compares them and returns the entry points whose report differs.
 *
 * @example
 * const { changed } = apiReport({ update: false });
 * if (changed.length > 0) process.exitCode = 1;
 */
export function apiReport({ update }) {
  const tempFolder = mkdtempSync(join(tmpdir(), 'keel-api-report-'));
  const changed = [];
  const problems = [];
  try {
    for (const entry of entryPoints()) {
      const config = ExtractorConfig.prepare({
        configObject: configFor(entry, tempFolder),
        configObjectFullPath: join(ROOT, 'api', `${entry.name}.api-extractor.json`),
        packageJsonFullPath: join(ROOT, 'package.json'),
      });
      const result = Extractor.invoke(config, {
        localBuild: update,
        messageCallback: (message) => {
          // The report-changed warning is ours to phrase (below); the rest is a real problem.
          if (message.messageId.startsWith('console-api-report-')) message.handled = true;
          else if (
            message.logLevel === ExtractorLogLevel.Warning ||
            message.logLevel === ExtractorLogLevel.Error
          ) {
            problems.push(`${entry.name}: [${message.messageId}] ${message.text}`);
            message.handled = true;
          } else message.handled = true;
        },
      });
      if (result.apiReportChanged) {
        changed.push(entry.name);
        if (!update) problems.push(lineChanges(entry.name, tempFolder));
      }
    }
  } finally {
    rmSync(tempFolder, { recursive: true, force: true });
  }
  return { changed, problems };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const update = process.argv.includes('--update');
  const { changed, problems } = apiReport({ update });
  for (const problem of problems) console.error(problem);
  if (update) {
    console.log(
      changed.length > 0
        ? `api/: updated ${changed.map((n) => `${n}.api.md`).join(', ')}`
        : 'api/: no change',
    );
  } else if (changed.length > 0) {
    console.error(
      `The public API changed: ${changed.map((n) => `api/${n}.api.md`).join(', ')} no longer match` +
        ' the build.\nIf the change is intended, run `npm run build && npm run api:update` and commit the diff' +
        ' of api/ (it is what reviewers read); if not, restore the export.',
    );
  }
  process.exitCode = changed.length > 0 && !update ? 1 : problems.length > 0 ? 1 : 0;
}
