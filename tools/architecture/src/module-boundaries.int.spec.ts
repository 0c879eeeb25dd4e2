import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

/**
 * The module boundaries are lint rules, and the nx rule silently skips itself when no project graph
 * is cached (a fresh clone). This runs the real eslint CLI, the way `npm run lint` does, over probe
 * files that break each boundary, so a rule that stopped biting fails here.
 */
const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');
const run = promisify(execFile);

interface Probe {
  readonly name: string;
  readonly path: string;
  readonly source: string;
  readonly breaks: RegExp | null;
  /** The rule that refuses it; default the nx boundary rule. */
  readonly rule?: string;
}

const tag = `boundary-probe-${randomUUID().slice(0, 8)}`;
const probes: Probe[] = [
  {
    name: 'the domain importing an adapter package (pg)',
    path: `libs/domain/src/${tag}-adapter.ts`,
    source: `import { Pool } from 'pg';\nexport const probe = Pool;\n`,
    breaks: /tagged with "type:domain" is not allowed to import "pg"/,
  },
  {
    name: 'the domain importing an infra lib',
    path: `libs/domain/src/${tag}-infra.ts`,
    source: `import { PostgresEventStore } from '@onceport/event-store';\nexport const probe = PostgresEventStore;\n`,
    // Every infra lib builds on the domain, so the rule may name the cycle the import would close
    // before it names the tags: either way the import is refused.
    breaks: /tagged with "type:domain" can only depend on libs tagged with|Circular dependency between "domain" and "event-store"/,
  },
  {
    name: 'a feature importing another feature',
    path: `libs/feature-intake/src/${tag}-feature.ts`,
    source: `import * as dispatcher from '@onceport/feature-dispatcher';\nexport const probe = dispatcher;\n`,
    breaks: /tagged with "type:feature" can only depend on libs tagged with/,
  },
  {
    name: 'an app importing another app by a relative path',
    path: `apps/intake/src/${tag}-app.ts`,
    source: `import * as dispatcherMain from '../../dispatcher/src/main';\nexport const probe = dispatcherMain;\n`,
    breaks: /Projects cannot be imported by a relative or absolute path/,
  },
  {
    name: "an app importing another service's feature",
    path: `apps/intake/src/${tag}-scope.ts`,
    source: `import { DispatcherModule } from '@onceport/feature-dispatcher';\nexport const probe = DispatcherModule;\n`,
    breaks: /tagged with "scope:intake" can only depend on libs tagged with "scope:intake", "scope:shared"/,
  },
  {
    name: 'production code (the embedded start) importing a test-support lib',
    path: `apps/embedded/src/${tag}-test-support.ts`,
    source: `import { remoteTestTarget } from '@onceport/test-target';\nexport const probe = remoteTestTarget;\n`,
    breaks: /tagged with "type:app" can only depend on libs tagged with/,
  },
  {
    name: 'a production feature file importing a test-support lib',
    path: `libs/feature-dispatcher/src/${tag}-test-support.ts`,
    source: `import { startFaultProxy } from '@onceport/fault-kit';\nexport const probe = startFaultProxy;\n`,
    breaks: /tagged with "type:feature" can only depend on libs tagged with/,
  },
  {
    name: 'a production channel importing the test MCP upstream',
    path: `libs/target-channels/src/${tag}-test-upstream.ts`,
    source: `import { startHttpUpstream } from '@onceport/test-upstream';\nexport const probe = startHttpUpstream;\n`,
    breaks: /tagged with "type:infra" can only depend on libs tagged with/,
  },
  {
    name: "a production file importing a lib's /testing entry point",
    path: `libs/feature-reconciler/src/${tag}-testing-entry.ts`,
    source: `import * as storeTesting from '@onceport/event-store/testing';\nexport const probe = storeTesting;\n`,
    breaks: /a testing entry point is for tests/,
    rule: 'no-restricted-imports',
  },
  {
    name: 'a feature importing the domain (allowed)',
    path: `libs/feature-intake/src/${tag}-allowed.ts`,
    source: `import { parseKeyring } from '@onceport/domain';\nexport const probe = parseKeyring;\n`,
    breaks: null,
  },
  {
    name: 'an app importing its own feature and a shared lib (allowed)',
    path: `apps/dispatcher/src/${tag}-allowed.ts`,
    source: `import { DispatcherModule } from '@onceport/feature-dispatcher';\nimport { TargetChannels } from '@onceport/target-channels';\nexport const probe = [DispatcherModule, TargetChannels];\n`,
    breaks: null,
  },
  {
    name: 'the embedded start composing all four features and the demo target (allowed)',
    path: `apps/embedded/src/${tag}-allowed.ts`,
    source: [
      `import { AuthorizationModule } from '@onceport/feature-authorization';`,
      `import { DispatcherModule } from '@onceport/feature-dispatcher';`,
      `import { IntakeModule } from '@onceport/feature-intake';`,
      `import { ReconcilerModule } from '@onceport/feature-reconciler';`,
      `import { startDemoTarget } from '@onceport/demo-target';`,
      `export const probe = [AuthorizationModule, DispatcherModule, IntakeModule, ReconcilerModule, startDemoTarget];`,
      '',
    ].join('\n'),
    breaks: null,
  },
  {
    name: 'test code importing test-support libs and a /testing entry point (allowed)',
    path: `libs/feature-dispatcher/test/${tag}-allowed.ts`,
    source: [
      `import { startFaultProxy } from '@onceport/fault-kit';`,
      `import { startTestTarget } from '@onceport/test-target';`,
      `import { startHttpUpstream } from '@onceport/test-upstream';`,
      `import * as storeTesting from '@onceport/event-store/testing';`,
      `export const probe = [startFaultProxy, startTestTarget, startHttpUpstream, storeTesting];`,
      '',
    ].join('\n'),
    breaks: null,
  },
];

interface LintResult {
  readonly filePath: string;
  readonly messages: ReadonlyArray<{ readonly ruleId: string | null; readonly message: string }>;
}

describe('module boundaries, as `npm run lint` enforces them', () => {
  let results: Map<string, LintResult>;

  beforeAll(async () => {
    for (const probe of probes) writeFileSync(join(WORKSPACE_ROOT, probe.path), probe.source);
    try {
      // `npm run lint` on just the probes: the same script caches the project graph, then runs eslint.
      const { stdout } = await run('bash', ['tools/lint.sh', '--format', 'json', ...probes.map((probe) => probe.path)], {
        cwd: WORKSPACE_ROOT,
        maxBuffer: 64 * 1024 * 1024,
      }).catch((failure: { stdout?: string }) => ({ stdout: failure.stdout ?? '' }));
      results = new Map((JSON.parse(stdout) as LintResult[]).map((result) => [relative(WORKSPACE_ROOT, result.filePath), result]));
    } finally {
      for (const probe of probes) rmSync(join(WORKSPACE_ROOT, probe.path), { force: true });
    }
  });

  it.each(probes.filter((probe) => probe.breaks).map((probe) => [probe.name, probe] as const))('refuses %s', (_name, probe) => {
    const rule = probe.rule ?? '@nx/enforce-module-boundaries';
    const boundaryErrors = results.get(probe.path)?.messages.filter((message) => message.ruleId === rule) ?? [];
    expect(boundaryErrors.length).toBeGreaterThan(0);
    expect(boundaryErrors.map((message) => message.message).join('\n')).toMatch(probe.breaks!);
  });

  it.each(probes.filter((probe) => !probe.breaks).map((probe) => [probe.name, probe] as const))(
    'lets %s through (linted, not skipped)',
    (_name, probe) => {
      expect(results.get(probe.path)).toBeDefined();
      expect(results.get(probe.path)?.messages).toEqual([]);
    },
  );
});
