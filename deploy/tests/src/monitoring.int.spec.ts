import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The services' libs, for the metrics they register on the process registry (what /metrics serves).
import '@onceport/feature-authorization';
import '@onceport/feature-dispatcher';
import '@onceport/feature-intake';
import '@onceport/feature-reconciler';
import { register } from 'prom-client';
import { stringify } from 'yaml';
import { type K8sObject, isConfigMap, isNetworkPolicy } from './support/k8s-object';
import { ensureKustomize, renderKustomization } from './support/kubectl';
import { PrometheusRuleSchema } from './support/monitoring-models';
import { WORKSPACE_ROOT } from './support/workspace';

const OVERLAYS = ['overlays/dev', 'overlays/prod'] as const;
const ALERTS_TEST = join(WORKSPACE_ROOT, 'deploy/tests/fixtures/onceport-alerts.test.yaml');
const DASHBOARD = join(WORKSPACE_ROOT, 'deploy/k8s/monitoring/grafana/onceport.json');

/** promtool from Debian's prometheus package (tools/dev-services.sh installs it for CI), or null. */
function promtool(): string | null {
  try {
    return execFileSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Every metric name an expression reads, without the histogram series suffixes. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\bonceport_[a-z_]+\b/g)].map(([name]) => name.replace(/_(bucket|sum|count)$/, ''));
}

describe('monitoring: Prometheus rules, the PodMonitor and the Grafana dashboard in the overlays', () => {
  const rendered = new Map<string, K8sObject[]>();

  beforeAll(() => {
    const kustomize = ensureKustomize();
    for (const overlay of OVERLAYS) rendered.set(overlay, renderKustomization(kustomize, join(WORKSPACE_ROOT, 'deploy/k8s', overlay)));
  });

  const ruleOf = (overlay: string) => PrometheusRuleSchema.parse(rendered.get(overlay)?.find((o) => o.kind === 'PrometheusRule'));

  it.each(OVERLAYS)('%s carries the PodMonitor, the rules, the dashboard and the scrape permission', (overlay) => {
    const objects = rendered.get(overlay) ?? [];
    expect(objects.filter((o) => o.kind === 'PodMonitor').map((o) => o.metadata.name)).toEqual(['onceport']);
    expect(ruleOf(overlay).spec.groups.map((g) => g.name)).toEqual(['onceport.records', 'onceport.alerts']);
    const dashboard = objects.filter(isConfigMap).find((c) => c.metadata?.labels?.['grafana_dashboard'] === '1');
    expect(JSON.parse(dashboard?.data?.['onceport.json'] ?? '{}')).toMatchObject({ uid: 'onceport', title: 'Onceport' });
    expect(objects.filter(isNetworkPolicy).map((p) => p.metadata?.name)).toContain('onceport-ingress-prometheus');
  });

  it('names every alert the issue asks for, each with a severity and a summary', () => {
    const alerts = ruleOf('overlays/prod')
      .spec.groups.flatMap((g) => g.rules)
      .filter((r) => r.alert);
    expect(alerts.map((a) => a.alert).sort()).toEqual(
      [
        'OnceportApprovalWaitLong',
        'OnceportApprovalsWaiting',
        'OnceportEventsQuarantined',
        'OnceportHighRedeliveries',
        'OnceportNeedsReviewGrowing',
        'OnceportRelayLagHigh',
        'OnceportServiceDown',
        'OnceportUnknownOutcomesPilingUp',
      ].sort(),
    );
    for (const alert of alerts) {
      expect({ alert: alert.alert, severity: alert.labels?.['severity'] }).toEqual({
        alert: alert.alert,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      expect(alert.annotations?.['summary']).toBeTruthy();
    }
  });

  it('reads only metrics the services register (rules and dashboard)', () => {
    const registered = new Set(register.getMetricsAsArray().map((metric) => metric.name));
    const rules = ruleOf('overlays/prod').spec.groups.flatMap((g) => g.rules);
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const read = [...rules.map((r) => r.expr), ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))].flatMap(
      metricNames,
    );
    expect(read.length).toBeGreaterThan(10);
    expect([...new Set(read)].filter((name) => !registered.has(name))).toEqual([]);
  });

  it('the rules load in promtool, and its unit tests of the alerts pass (parsed only where promtool is missing outside CI)', () => {
    const tool = promtool();
    if (!tool && process.env['CI'] === 'true')
      throw new Error('promtool is missing: tools/dev-services.sh installs Debian’s prometheus package');
    const groups = ruleOf('overlays/prod').spec.groups;
    if (!tool) {
      // Parsed above by the schema; nothing more to check without promtool.
      expect(groups.flatMap((g) => g.rules).every((r) => r.expr.trim().length > 0)).toBe(true);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'onceport-rules-'));
    try {
      writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
      copyFileSync(ALERTS_TEST, join(dir, 'alerts.test.yaml'));
      execFileSync(tool, ['check', 'rules', join(dir, 'rules.yaml')], { encoding: 'utf8' });
      const tested = execFileSync(tool, ['test', 'rules', join(dir, 'alerts.test.yaml')], { encoding: 'utf8' });
      expect(tested).toContain('SUCCESS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
