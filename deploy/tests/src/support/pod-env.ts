import { randomBytes } from 'node:crypto';
import type { IConfigMap, IDeployment } from './k8s-object';

type PodSpec = NonNullable<NonNullable<IDeployment['spec']>['template']['spec']>;
export type Container = PodSpec['containers'][number];

/** Stand-ins for values a Secret supplies at run time, shaped as the services expect them. */
function secretStandIn(key: string): string {
  const keyRing = key === 'ONCEPORT_HMAC_KEYS' || key === 'ONCEPORT_ENCRYPTION_KEYS';
  return keyRing ? `k1:${randomBytes(32).toString('base64')}` : `stand-in-for-${key}`;
}

/**
 * The environment a container would see: its ConfigMap `envFrom`, then its own `env` (later wins,
 * as in Kubernetes), with stand-ins for Secret and downward-API values.
 */
export function containerEnvironment(container: Container, configMaps: ReadonlyMap<string, IConfigMap>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name;
    if (name) Object.assign(env, configMaps.get(name)?.data ?? {});
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (variable.valueFrom?.secretKeyRef) env[variable.name] = secretStandIn(variable.valueFrom.secretKeyRef.key);
    else if (variable.valueFrom?.fieldRef) env[variable.name] = 'pod-name';
  }
  return env;
}
