// ESLint: typescript-eslint's type-checked rules (floating promises, unsafe any, needless awaits and assertions).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-b/**',
      'libs/*/dist/**',
      'node_modules/**',
      'libs/persistence/src/generated/**',
      'test/support/openapi.d.ts',
      '**/*.mjs',
      '!bench/**/*.mjs',
      '!libs/**/*.mjs',
      '**/*.js',
      'prisma.config.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Prettier keeps code at 120; this catches the strings, comments and SQL it does not wrap.
      'max-len': ['error', { code: 140, ignoreUrls: true }],
      // Once any AsyncLocalStorage runs, Node 20 keeps promise hooks on for the whole process: 9-18 % of the API's
      // CPU per instant call (docs/decisions/009-request-logs-without-async-context.md). Pass what a request needs.
      'no-restricted-imports': [
        'error',
        ...['node:async_hooks', 'async_hooks'].map((name) => ({
          name,
          importNames: ['AsyncLocalStorage', 'createHook'],
          message: 'Node 20 then runs promise hooks on every promise of the process: pass the context explicitly.',
        })),
      ],
    },
  },
  {
    // Tests and scripts read JSON answers as `any` on purpose: the assertions are the type check.
    files: ['test/**/*.ts', '**/*.spec.ts', 'scripts/**/*.ts', 'bench/**/*.ts', 'bench/**/*.mjs'],
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The bench's Node scripts and the libs' worker-thread modules are type-checked JavaScript (tsconfig.json:
    // checkJs): tsc knows Node's globals from @types/node and reports an undefined name itself, as it does for the
    // TypeScript, so no-undef adds nothing.
    files: ['bench/**/*.mjs', 'libs/**/*.mjs'],
    rules: { 'no-undef': 'off' },
  },
);
