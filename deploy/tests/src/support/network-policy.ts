import { type INetworkPolicy, type K8sObject, type LabelSelector, selects } from './k8s-object';

type Policy = K8sObject & INetworkPolicy;
type EgressRule = NonNullable<NonNullable<INetworkPolicy['spec']>['egress']>[number];
type Peer = NonNullable<EgressRule['to']>[number];

/** The ports an Onceport pod needs besides its targets: DNS, NATS, PostgreSQL, OTLP/HTTP. */
export const INFRASTRUCTURE_PORTS: ReadonlySet<string> = new Set(['UDP/53', 'TCP/53', 'TCP/4222', 'TCP/5432', 'TCP/4318']);

export interface PodEgress {
  /** Some policy selects the pod for egress: only what the rules allow leaves it. */
  readonly isolated: boolean;
  readonly rules: readonly { readonly policy: string; readonly rule: EgressRule }[];
}

function selectsPod(policy: Policy, namespace: string | undefined, labels: Record<string, string>, type: 'Ingress' | 'Egress'): boolean {
  const spec = policy.spec;
  if (!spec || policy.metadata.namespace !== namespace) return false;
  // policyTypes defaults to Ingress, plus Egress when egress rules are present.
  const types = spec.policyTypes ?? ['Ingress', ...(spec.egress ? ['Egress'] : [])];
  return types.includes(type) && selects(spec.podSelector as LabelSelector, labels);
}

/** Every egress rule that applies to a pod with these labels (policies add up). */
export function egressOf(policies: readonly Policy[], namespace: string | undefined, labels: Record<string, string>): PodEgress {
  const selecting = policies.filter((policy) => selectsPod(policy, namespace, labels, 'Egress'));
  return {
    isolated: selecting.length > 0,
    rules: selecting.flatMap((policy) => (policy.spec?.egress ?? []).map((rule) => ({ policy: policy.metadata.name, rule }))),
  };
}

export function isIngressIsolated(policies: readonly Policy[], namespace: string | undefined, labels: Record<string, string>): boolean {
  return policies.some((policy) => selectsPod(policy, namespace, labels, 'Ingress'));
}

export function ingressRulesOf(
  policies: readonly Policy[],
  namespace: string | undefined,
  labels: Record<string, string>,
): NonNullable<NonNullable<INetworkPolicy['spec']>['ingress']> {
  return policies.filter((policy) => selectsPod(policy, namespace, labels, 'Ingress')).flatMap((policy) => policy.spec?.ingress ?? []);
}

/** A peer naming particular pods by label (an ipBlock or a bare namespace selector is "anywhere"). */
function isPodPeer(peer: Peer): boolean {
  const selector = peer.podSelector as LabelSelector | undefined;
  return (
    !peer.ipBlock && !!selector && (Object.keys(selector.matchLabels ?? {}).length > 0 || (selector.matchExpressions ?? []).length > 0)
  );
}

/** A peer naming Onceport's own pods in the policy's namespace (no namespace selector): the console's way to the services. */
function isOwnPodPeer(peer: Peer): boolean {
  const selector = peer.podSelector as LabelSelector | undefined;
  return !peer.ipBlock && !peer.namespaceSelector && selector?.matchLabels?.['app.kubernetes.io/part-of'] === 'onceport';
}

function portKeys(rule: EgressRule): string[] | null {
  if (!rule.ports || rule.ports.length === 0) return null;
  return rule.ports.map((port) => `${port.protocol ?? 'TCP'}/${port.port ?? '*'}${port.endPort ? `-${port.endPort}` : ''}`);
}

/**
 * Why a rule lets traffic reach something that is not Onceport's infrastructure (a target), or
 * null when it only reaches labelled pods on the infrastructure ports.
 */
export function targetReach(rule: EgressRule): string | null {
  const ports = portKeys(rule);
  if (!rule.to || rule.to.length === 0) return `any destination${ports ? ` on ${ports.join(', ')}` : ', any port'}`;
  // Onceport's own pods are no target (onceportPodsReached says which, on which ports).
  if (rule.to.every(isOwnPodPeer)) return null;
  const open = rule.to.find((peer) => !isPodPeer(peer));
  if (open)
    return `${open.ipBlock ? `ipBlock ${open.ipBlock.cidr}` : 'every pod of the selected namespaces'}${ports ? ` on ${ports.join(', ')}` : ', any port'}`;
  if (!ports) return 'the selected pods on any port';
  const other = ports.filter((port) => !INFRASTRUCTURE_PORTS.has(port));
  return other.length > 0 ? `the selected pods on ${other.join(', ')}` : null;
}

/** Where a pod may send besides the infrastructure: [] means "nowhere else". */
export function targetsReachable(egress: PodEgress): string[] {
  if (!egress.isolated) return ['anywhere (no NetworkPolicy isolates its egress)'];
  return egress.rules.flatMap(({ policy, rule }) => {
    const reach = targetReach(rule);
    return reach ? [`${policy}: ${reach}`] : [];
  });
}

/** Whether the rules let the pod reach this port (e.g. "TCP/5432") at all. */
export function reachesPort(egress: PodEgress, port: string): boolean {
  if (!egress.isolated) return true;
  return egress.rules.some(({ rule }) => {
    const ports = portKeys(rule);
    return ports === null || ports.includes(port);
  });
}

/**
 * Which of Onceport's own pods (by app name, from their labels) the rules reach in the pod's
 * namespace, and on which ports ("TCP/http"; "any" for a rule without ports).
 */
export function onceportPodsReached(
  egress: PodEgress,
  podsByApp: Readonly<Record<string, Record<string, string>>>,
): Record<string, string[]> {
  const reached: Record<string, string[]> = {};
  for (const { rule } of egress.rules) {
    for (const peer of (rule.to ?? []).filter(isOwnPodPeer)) {
      for (const [app, labels] of Object.entries(podsByApp)) {
        if (!selects(peer.podSelector as LabelSelector, labels)) continue;
        reached[app] = [...new Set([...(reached[app] ?? []), ...(portKeys(rule) ?? ['any'])])].sort();
      }
    }
  }
  return reached;
}
