import type { INetworkPolicy, K8sObject } from './support/k8s-object';
import { egressOf, onceportPodsReached, reachesPort, targetsReachable } from './support/network-policy';

type Policy = K8sObject & INetworkPolicy;
type EgressRules = NonNullable<INetworkPolicy['spec']>['egress'];
const NS = 'onceport';
const intake = { 'app.kubernetes.io/name': 'intake', 'app.kubernetes.io/part-of': 'onceport' };
const dispatcher = { 'app.kubernetes.io/name': 'dispatcher', 'app.kubernetes.io/part-of': 'onceport' };

function policy(name: string, spec: INetworkPolicy['spec']): Policy {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: NS }, spec };
}

const denyAll = policy('deny', {
  podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'onceport' } },
  policyTypes: ['Ingress', 'Egress'],
});
const infrastructure = policy('infra', {
  podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'onceport' } },
  policyTypes: ['Egress'],
  egress: [
    { to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ protocol: 'UDP', port: 53 }] },
    {
      to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'postgresql' } } }],
      ports: [{ protocol: 'TCP', port: 5432 }],
    },
  ],
});
const targetsFor = (names: string[], egress: EgressRules): Policy =>
  policy('targets', {
    podSelector: { matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: names }] },
    policyTypes: ['Egress'],
    egress,
  });

describe('NetworkPolicy egress analysis (what the manifest test relies on)', () => {
  it('a pod no policy isolates can reach anything', () => {
    expect(targetsReachable(egressOf([], NS, intake))).toEqual(['anywhere (no NetworkPolicy isolates its egress)']);
  });

  it('default deny plus infrastructure rules: DNS and PostgreSQL only, nothing else', () => {
    const egress = egressOf([denyAll, infrastructure], NS, intake);
    expect(targetsReachable(egress)).toEqual([]);
    expect(reachesPort(egress, 'UDP/53')).toBe(true);
    expect(reachesPort(egress, 'TCP/5432')).toBe(true);
    expect(reachesPort(egress, 'TCP/4222')).toBe(false);
  });

  it('an open rule reaches targets, and only for the pods it selects (matchExpressions)', () => {
    const policies = [denyAll, infrastructure, targetsFor(['dispatcher', 'reconciler'], [{}])];
    expect(targetsReachable(egressOf(policies, NS, dispatcher))).toEqual(['targets: any destination, any port']);
    expect(targetsReachable(egressOf(policies, NS, intake))).toEqual([]);
  });

  it.each<[string, EgressRules, string]>([
    [
      'an ipBlock, even on an infrastructure port',
      [{ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ protocol: 'TCP', port: 5432 }] }],
      'ipBlock 0.0.0.0/0 on TCP/5432',
    ],
    [
      'a labelled pod on another port',
      [{ to: [{ podSelector: { matchLabels: { app: 'x' } } }], ports: [{ protocol: 'TCP', port: 443 }] }],
      'the selected pods on TCP/443',
    ],
    [
      'a namespace without a pod selector',
      [{ to: [{ namespaceSelector: { matchLabels: { team: 'x' } } }], ports: [{ protocol: 'TCP', port: 4222 }] }],
      'every pod of the selected namespaces on TCP/4222',
    ],
    ['any port to a labelled pod', [{ to: [{ podSelector: { matchLabels: { app: 'x' } } }] }], 'the selected pods on any port'],
  ])('counts %s as reaching targets', (_label, egress, reach) => {
    expect(targetsReachable(egressOf([denyAll, infrastructure, targetsFor(['intake'], egress)], NS, intake))).toEqual([
      `targets: ${reach}`,
    ]);
  });

  it("a rule to Onceport's own pods in its namespace is no target, and names the apps and ports it reaches", () => {
    const console_ = { 'app.kubernetes.io/name': 'console', 'app.kubernetes.io/part-of': 'onceport' };
    const toServices = policy('console', {
      podSelector: { matchLabels: console_ },
      policyTypes: ['Egress'],
      egress: [
        {
          to: [
            {
              podSelector: {
                matchLabels: { 'app.kubernetes.io/part-of': 'onceport' },
                matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: ['intake'] }],
              },
            },
          ],
          ports: [{ protocol: 'TCP', port: 'http' }],
        },
      ],
    });
    const egress = egressOf([denyAll, toServices], NS, console_);
    expect(targetsReachable(egress)).toEqual([]);
    expect(onceportPodsReached(egress, { intake, dispatcher, console: console_ })).toEqual({ intake: ['TCP/http'] });
    // The same selector in any namespace (a namespaceSelector) is no longer "our own pods": a target.
    const anywhere = policy('console', {
      podSelector: { matchLabels: console_ },
      policyTypes: ['Egress'],
      egress: [{ to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'onceport' } } }] }],
    });
    expect(targetsReachable(egressOf([denyAll, anywhere], NS, console_))).toEqual(['console: the selected pods on any port']);
  });

  it('a policy of another namespace does not apply', () => {
    const elsewhere = { ...targetsFor(['intake'], [{}]), metadata: { name: 'targets', namespace: 'other' } };
    expect(targetsReachable(egressOf([denyAll, infrastructure, elsewhere], NS, intake))).toEqual([]);
  });
});
