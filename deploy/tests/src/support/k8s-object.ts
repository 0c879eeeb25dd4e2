import { type IDeployment, Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { type IHorizontalPodAutoscaler, HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { type INetworkPolicy, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { type IPodDisruptionBudget, PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { type IConfigMap, ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { type IService, Service } from 'kubernetes-models/v1/Service';
import { type IServiceAccount, ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { MONITORING_MODELS } from './monitoring-models';

/** What every rendered object has; the kind-specific shape comes from kubernetes-models. */
export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
}

interface Model {
  validate(): void;
}

// Each kind the manifests may contain, validated against the Kubernetes OpenAPI schema. A kind
// missing here fails the test: add it here when the manifests gain one.
const MODELS: Record<string, { prototype: Model }> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1 Job': Job,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Namespace': Namespace,
  'v1 Service': Service,
  'v1 ServiceAccount': ServiceAccount,
  ...MONITORING_MODELS,
};

/**
 * The schema errors of an object, or [] when it is valid: types, formats and required fields from
 * kubernetes-models, plus every key the schema does not declare (a misspelled `readinesProbe` is
 * silently dropped by the API server — kubernetes-models alone lets it pass).
 */
export function schemaErrors(object: K8sObject): string[] {
  const key = `${object.apiVersion} ${object.kind}`;
  const model = MODELS[key];
  if (!model) return [`no schema for ${key} (add it to MODELS)`];
  const tracked = trackReads(object);
  const errors: string[] = [];
  try {
    // The model's validate runs the compiled OpenAPI schema on `this`: here the tracking proxy.
    model.prototype.validate.call(tracked.proxy);
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
  return [...errors, ...tracked.undeclared().map((path) => `${path}: unknown field (not in the ${key} schema)`)];
}

/**
 * kubernetes-models ships each kind's OpenAPI schema only as compiled (ajv) validator code, with
 * no `additionalProperties: false`. Which keys a schema declares is still visible from what that
 * code does: it reads every declared property of an object (`data.readinessProbe`), and it
 * enumerates the keys of a map (`additionalProperties`: labels, resource limits). A schema with
 * neither (free-form: `x-kubernetes-preserve-unknown-fields`, an untyped object) reads nothing, so
 * its keys are all allowed. int-or-string values are not objects and need nothing here.
 */
export function trackReads(root: object): { proxy: object; undeclared(): string[] } {
  const records: { path: string; target: object; read: Set<string>; enumerated: boolean }[] = [];
  const proxies = new WeakMap<object, object>();
  const wrap = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const known = proxies.get(value);
    if (known) return known;
    const record = { path, target: value, read: new Set<string>(), enumerated: false };
    records.push(record);
    const proxy = new Proxy(value, {
      get(target, property, receiver) {
        const found: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== 'string') return found;
        record.read.add(property);
        return Object.prototype.hasOwnProperty.call(target, property) ? wrap(found, `${path}/${property}`) : found;
      },
      has(target, property) {
        if (typeof property === 'string') record.read.add(property);
        return Reflect.has(target, property);
      },
      ownKeys(target) {
        record.enumerated = true;
        return Reflect.ownKeys(target);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  const proxy = wrap(root, '') as object;
  return {
    proxy,
    undeclared: () =>
      records
        .filter((r) => !Array.isArray(r.target) && !r.enumerated && r.read.size > 0)
        .flatMap((r) =>
          Object.keys(r.target)
            .filter((key) => !r.read.has(key))
            .map((key) => `${r.path}/${key}`),
        ),
  };
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
      operator === 'In'
        ? present && values.includes(have[key] as string)
        : operator === 'NotIn'
          ? !present || !values.includes(have[key] as string)
          : operator === 'Exists'
            ? present
            : operator === 'DoesNotExist'
              ? !present
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
