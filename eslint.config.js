// ESLint for the TypeScript sources and tests: a few rules, each catching a kind of bug this
// server has had or cannot afford, none about layout (the code is not reformatted by a linter).
// `npm run lint`; `npm test` runs it before the tests.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // What git ignores, too: npm test lints while its set-up installs and locks (.setup.lock/ comes
    // and goes), and a folder that vanishes under the walk fails it.
    ignores: ['dist/', 'node_modules/', '.tools/', '.data/', '.setup.lock/', 'test/fixtures/', 'bench/', 'scripts/', 'docker/', 'eslint.config.js'],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      // Type information, for the rules about promises: one program of tsconfig.json, which
      // covers every file linted (the project service, one per file, took 20-30% more CPU).
      parserOptions: { project: ['./tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // A disable comment that no longer silences anything is an error too.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits or catches: its rejection is unhandled and ends the process.
      '@typescript-eslint/no-floating-promises': 'error',
      // A promise where a boolean or a void callback is expected: always truthy, or its rejection lost.
      '@typescript-eslint/no-misused-promises': 'error',
      // awaiting something that is not a promise: a sign the value is not what the code thinks.
      '@typescript-eslint/await-thenable': 'error',
      // `any` switches the type checker off; where it is needed, say why in a disable comment.
      '@typescript-eslint/no-explicit-any': 'error',
      // @ts-ignore hides any error, present or future; @ts-expect-error needs a reason and fails when stale.
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-expect-error': 'allow-with-description' }],
      // Unused names are dead code or a forgotten use; `_` marks one left unused on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // == converts types before comparing; `== null` (null or undefined) is the one use kept.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // stdout carries the MCP protocol over stdio: a stray console.log corrupts it. Logs go to
      // stderr through src/log.ts; what a command prints on purpose uses process.stdout.
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
);
