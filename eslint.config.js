// ESLint (flat config) with typescript-eslint. The floors of the tree are rules here: each
// folder may import only from the folders below it, so an arrow pointing up fails `npm test`.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Folders a folder must not import from (the stages above it, and the CLI over all). */
const ABOVE = {
  shared: ['storage', 'calendar', 'ingest', 'serve', 'cli', 'client', 'bench'],
  calendar: ['storage', 'ingest', 'serve', 'cli', 'client', 'bench'],
  storage: ['ingest', 'serve', 'cli', 'client', 'bench'],
  ingest: ['serve', 'cli', 'bench'],
  serve: ['ingest', 'cli', 'bench'],
  // The shared state knows nothing of the operations and the HTTP layer above it (listed after
  // serve/: the later entry is the one its files get, so it repeats serve/'s floors).
  'serve/access': ['ingest', 'cli', 'bench', 'level2', 'detailedHistory', 'tickHistory', 'http', 'reading'],
  // The published client stands alone: a user installs it without the server. Of shared/ it
  // takes only retry/ (the one retry policy and error base, which import nothing): ALLOWED.
  client: ['shared', 'storage', 'calendar', 'ingest', 'serve', 'cli', 'bench'],
};

/** Folders under a forbidden one that a folder may still import (gitignore-style negations). */
const ALLOWED = { client: ['shared/retry'] };

const floors = Object.entries(ABOVE).map(([folder, above]) => ({
  files: [`${folder}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: above.map((a) => ({
          group: [`**/${a}/*`, `**/${a}/**`, ...(ALLOWED[folder] ?? []).filter((ok) => ok.startsWith(`${a}/`)).flatMap((ok) => [`!**/${ok}`, `!**/${ok}/**`])],
          message: `${folder}/ must not import from ${a}/: the tree's arrows point down (the README's map of the tree).`,
        })),
      },
    ],
  },
}));

// What the client takes of shared/ stays self-contained: it imports nothing outside its folder, so
// the published client carries those files and nothing else of the server's tree.
const selfContained = {
  files: ['shared/retry/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [{ group: ['../*', '../**'], message: 'shared/retry/ imports nothing outside itself: the published client carries it.' }] },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist-*/**', 'node_modules/**', 'clients/python/**', 'data/**', 'serve/http/console/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: globals.node } },
  {
    rules: {
      // A leading underscore names what is there only to be skipped (a destructured slot, a
      // callback's unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  ...floors,
  selfContained,
);
