// Temporal's usual rules: no floating promises anywhere, and no Node built-ins (or anything
// else non-deterministic) inside workflow code, which runs in a replaying sandbox.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const noMathRandom = { object: 'Math', property: 'random', message: 'Non-deterministic in workflow code; derive values from state.' };

export default tseslint.config(
  { ignores: ['node_modules/', '.temporal/', '.world/', 'bench/results/', 'coverage/', 'dist/', '.agentdojo/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The outside project's plain-JavaScript files (test/package/outside/) run on Node.
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', fetch: 'readonly', AbortSignal: 'readonly', console: 'readonly' } },
  },
  {
    // CommonJS where Temporal's SDK require()s a module by path (worker/failure-converter.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', exports: 'writable', globalThis: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['workflows/**/*.ts', 'domains/index.ts', 'domains/*/domain.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code runs in a deterministic sandbox: no Node built-ins.' })),
          patterns: [
            { group: ['@temporalio/activity', '@temporalio/worker', '@temporalio/client'], message: 'Not available inside workflow code.' },
            {
              group: ['**/activities/**', '**/worker/**', '**/client/**', '**/world/**'],
              allowTypeImports: true,
              message: 'Workflow code may only import types from activities, worker, client and the world.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' }],
      'no-restricted-properties': ['error', noMathRandom],
      // zod's global registry and config belong to the zod the worker preloads once and shares
      // between runs: a schema registered here would be registered again by the next run (and throw).
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='meta']",
          message: 'No .meta() in workflow code: it writes to the global zod registry shared by every run on the worker.',
        },
        {
          selector: "CallExpression[callee.property.name='register']",
          message: 'No .register() in workflow code: registries are shared by every run on the worker.',
        },
        {
          selector: "CallExpression[callee.object.name='z'][callee.property.name='config']",
          message: 'No z.config() in workflow code: it changes zod for every run on the worker.',
        },
      ],
    },
  },
  {
    // What the loop does with a result reads the time through loopNow() (workflows/arrivals.ts):
    // while a seal check is pending, the time it started, which live and replay agree on.
    files: ['workflows/perform.ts', 'workflows/tool-results.ts', 'workflows/closing.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        noMathRandom,
        {
          object: 'Date',
          property: 'now',
          message: "The loop's time is loopNow() (workflows/arrivals.ts): live and replay may hand a checked result over in different tasks.",
        },
      ],
    },
  },
);
