import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// the layers of docs/architecture.md: nothing outside rest/ and cli/ (and the public entry) imports them
const TOP_LAYERS_ONLY = {
  group: ['**/rest/**', '**/cli/**'],
  message:
    'Only src/rest/, src/cli/ and src/index.ts import the REST API and the CLI (docs/architecture.md).',
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.kafka/',
      'coverage/',
      'bench/node_modules/',
      'bench/.built-child.mjs',
      'bench/results/',
      '.scratch*/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  // the layers of docs/architecture.md (test/unit/architecture/layers.test.ts holds the whole table):
  // rest/ and cli/ are the top, imported by nothing else but the public entry; nothing below
  // distributed/ imports it
  {
    files: ['src/**/*.ts'],
    ignores: ['src/index.ts', 'src/cli/**', 'src/rest/**', 'src/distributed/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            TOP_LAYERS_ONLY,
            {
              group: ['**/distributed/**'],
              message: 'Nothing below src/distributed/ imports it (docs/architecture.md, layers).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/distributed/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [TOP_LAYERS_ONLY],
        },
      ],
    },
  },
  {
    files: ['src/rest/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/cli/**'], message: 'Only src/cli/ and src/index.ts import the CLI.' }] },
      ],
    },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
);
