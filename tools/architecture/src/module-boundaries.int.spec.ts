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
    breaks: /tagged with "type:domain" can only depend on libs tagged with/,
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
    name: 'a feature importing the domain (allowed)',
    path: `libs/feature-intake/src/${tag}-allowed.ts`,
    source: `import { canonicalJson } from '@onceport/domain';\nexport const probe = canonicalJson;\n`,
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
    const boundaryErrors = results.get(probe.path)?.messages.filter((message) => message.ruleId === '@nx/enforce-module-boundaries') ?? [];
    expect(boundaryErrors.length).toBeGreaterThan(0);
    expect(boundaryErrors.map((message) => message.message).join('\n')).toMatch(probe.breaks!);
  });

  it('lets an allowed import through (the probes are linted, not skipped)', () => {
    const allowed = probes.find((probe) => !probe.breaks)!;
    expect(results.get(allowed.path)?.messages).toEqual([]);
  });
});
