import { type IDeployment, Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { type IHorizontalPodAutoscaler, HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { type INetworkPolicy, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { type IPodDisruptionBudget, PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { type IConfigMap, ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { type IService, Service } from 'kubernetes-models/v1/Service';
import { type IServiceAccount, ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';

/** What every rendered object has; the kind-specific shape comes from kubernetes-models. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
}

type Validator = (object: K8sObject) => void;

// Each kind the manifests may contain, validated against the Kubernetes OpenAPI schema. A kind
// missing here fails the test: add it here when the manifests gain one.
const VALIDATORS: Record<string, Validator> = {
  'apps/v1 Deployment': (o) => new Deployment(o as unknown as IDeployment).validate(),
  'autoscaling/v2 HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o as unknown as IHorizontalPodAutoscaler).validate(),
  'batch/v1 Job': (o) => new Job(o as unknown as ConstructorParameters<typeof Job>[0]).validate(),
  'networking.k8s.io/v1 NetworkPolicy': (o) => new NetworkPolicy(o as unknown as INetworkPolicy).validate(),
  'policy/v1 PodDisruptionBudget': (o) => new PodDisruptionBudget(o as unknown as IPodDisruptionBudget).validate(),
  'v1 ConfigMap': (o) => new ConfigMap(o as unknown as IConfigMap).validate(),
  'v1 Namespace': (o) => new Namespace(o as unknown as ConstructorParameters<typeof Namespace>[0]).validate(),
  'v1 Service': (o) => new Service(o as unknown as IService).validate(),
  'v1 ServiceAccount': (o) => new ServiceAccount(o as unknown as IServiceAccount).validate(),
};

/** The schema errors of an object, or [] when it is valid. */
export function schemaErrors(object: K8sObject): string[] {
  const validator = VALIDATORS[`${object.apiVersion} ${object.kind}`];
  if (!validator) return [`no schema for ${object.apiVersion} ${object.kind} (add it to VALIDATORS)`];
  try {
    validator(object);
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

export const isKind =
  <T>(kind: string) =>
  (object: K8sObject): object is K8sObject & T =>
    object.kind === kind;

export const isDeployment = isKind<IDeployment>('Deployment');
export const isService = isKind<IService>('Service');
export const isServiceAccount = isKind<IServiceAccount>('ServiceAccount');
export const isPdb = isKind<IPodDisruptionBudget>('PodDisruptionBudget');
export const isHpa = isKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
export const isNetworkPolicy = isKind<INetworkPolicy>('NetworkPolicy');
export const isConfigMap = isKind<IConfigMap>('ConfigMap');

export type { IDeployment, IService, IServiceAccount, IPodDisruptionBudget, IHorizontalPodAutoscaler, INetworkPolicy, IConfigMap };

export interface LabelSelector {
  readonly matchLabels?: Record<string, string>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** Kubernetes label-selector semantics; an empty selector selects everything. */
export function selects(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (have[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const present = key in have;
    const ok =
      operator === 'In' ? present && values.includes(have[key] as string)
      : operator === 'NotIn' ? !present || !values.includes(have[key] as string)
      : operator === 'Exists' ? present
      : operator === 'DoesNotExist' ? !present
      : false;
    if (!ok) return false;
  }
  return true;
}

const UNITS: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** A resource quantity ("500m", "1", "256Mi") as a number of base units. */
export function quantity(value: string | number | undefined): number {
  if (value === undefined) return Number.NaN;
  const match = /^([0-9.]+)([a-zA-Z]*)$/.exec(String(value));
  const unit = match ? UNITS[match[2] as string] : undefined;
  return match && unit !== undefined ? Number(match[1]) * unit : Number.NaN;
}
