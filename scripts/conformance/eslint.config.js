// The conformance runner is plain Node ESM (.mjs, no build step), outside the TypeScript project, so the
// root config's type-aware rules cannot parse it. ESLint 10 picks the nearest config per file: this one.
import js from '@eslint/js';

const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'URL',
    'fetch',
    'AbortController',
    'AbortSignal',
    'Buffer',
  ].map((name) => [name, 'readonly']),
);

export default [
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
];
