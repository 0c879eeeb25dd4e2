import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AppProcess, startAppProcess } from './app-process';
import { type EmbeddedStart, startEmbedded } from './embedded-start';
import { type FixtureActor, type FixtureOAuth, type GatewayFixture, writeGatewayFixture } from './gateway-fixture';

/** The four services of a deployment. */
export const GATEWAY_SERVICES = ['intake', 'authorization', 'dispatcher', 'reconciler'] as const;
export type GatewayService = (typeof GATEWAY_SERVICES)[number];

/** The consumers first, so the first call an agent makes finds them consuming. */
export const CONSUMERS_FIRST: readonly (readonly GatewayService[])[] = [['authorization', 'dispatcher', 'reconciler'], ['intake']];

type PerService<T> = Partial<Record<GatewayService, T>>;

export interface GatewayOptions {
  /** `processes` (default): each service its own process, as a deployment runs them; `embedded`: the one-process `npm start`. */
  readonly mode?: 'processes' | 'embedded';
  /** Where the demo contracts' origins point. */
  readonly targetUrl: string;
  readonly actors: readonly FixtureActor[];
  /** An `oauth:` section in the actors file, and the admin's token subjects. */
  readonly oauth?: FixtureOAuth;
  /** The gateway's database (processes mode; the embedded start brings its own PostgreSQL). */
  readonly database?: { readonly url: string };
  /** JetStream; without it, only `ONCEPORT_DELIVERY: 'in_process'` works (the URL is then a placeholder). */
  readonly nats?: { readonly url: string };
  /** More contract files beside the demo ones: file name → YAML. */
  readonly contracts?: Readonly<Record<string, string>>;
  /** Environment of every service, over the fixture's. */
  readonly env?: Record<string, string>;
  /** Environment of one service's processes, over `env`. */
  readonly serviceEnv?: PerService<Record<string, string>>;
  /** How many processes of each service (default 1); replicas of one service start one after the other. */
  readonly replicas?: PerService<number>;
  /** Stages started one after the other, the services of a stage at once; a service in no stage is not started. */
  readonly startOrder?: readonly (readonly GatewayService[])[];
  /** `node` options of one service's processes (e.g. a CPU profile). */
  readonly nodeArgs?: PerService<readonly string[]>;
  /** Every service writes its spans to `traceFile` (ONCEPORT_TRACE_FILE), in the fixture's dir. */
  readonly trace?: boolean;
}

export interface RestartOptions {
  readonly replica?: number;
  /** This service's own environment for the new process (default: what it had). */
  readonly env?: Record<string, string>;
  /** SIGTERM and wait (default: SIGKILL, a crash). */
  readonly graceful?: boolean;
}

/** A running gateway, whichever way it was started. */
export interface Gateway {
  readonly mode: 'processes' | 'embedded';
  /** The files it was started with (contracts, actors, keys); removed by `stop()`. */
  readonly fixture: GatewayFixture;
  readonly adminKey: string;
  readonly databaseUrl: string;
  /** Replica 0's URL of each; the embedded start serves all three on one URL. */
  readonly intakeUrl: string;
  readonly authorizationUrl: string;
  readonly reconcilerUrl: string;
  /** Where the spans go with `trace: true`. */
  readonly traceFile: string;
  /** Every started replica's URL of one service (a killed one's too), replica 0 first. */
  urls(service: GatewayService): string[];
  /** One replica's process (processes mode). */
  process(service: GatewayService, replica?: number): AppProcess;
  /** Everything one replica printed (embedded: the one process). */
  output(service: GatewayService, replica?: number): string;
  /** Every process' output, labelled: for a failure's message. */
  outputs(tail?: number): string;
  /** Starts one replica (again, or a new one) with the shared environment and `env` as its own. */
  start(service: GatewayService, replica?: number, env?: Record<string, string>): Promise<AppProcess>;
  /** Ends one replica with a signal (default SIGKILL) and waits until it is gone. */
  kill(service: GatewayService, replica?: number, signal?: NodeJS.Signals): Promise<void>;
  restart(service: GatewayService, options?: RestartOptions): Promise<AppProcess>;
  /** SIGTERM every process and wait (`kill: true`: SIGKILL), then remove the fixture. */
  stop(options?: { readonly kill?: boolean }): Promise<void>;
}

/**
 * Starts the gateway for a test or the bench: writes the fixture (demo contracts aimed at the
 * target, hashed actor keys, HMAC and encryption keys), then starts the services. On a failed
 * start, whatever started is stopped again.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const mode = options.mode ?? 'processes';
  const databaseUrl = options.database?.url ?? (mode === 'embedded' ? 'unused' : '');
  if (!databaseUrl) throw new Error('startGateway: the processes mode needs a database');
  // in_process delivery never connects to NATS; the variable is only required to be a URL.
  const fixture = writeGatewayFixture(
    options.targetUrl,
    options.actors,
    databaseUrl,
    options.nats?.url ?? 'nats://127.0.0.1:1',
    options.oauth,
  );
  for (const [file, yaml] of Object.entries(options.contracts ?? {})) writeFileSync(join(fixture.contractsDir, file), yaml);
  const traceFile = join(fixture.dir, 'spans.jsonl');
  const env = { ...(options.trace ? { ONCEPORT_TRACE_FILE: traceFile } : {}), ...options.env };
  const removeFixture = (): void => rmSync(fixture.dir, { recursive: true, force: true });
  if (mode === 'embedded') {
    const embedded = await startEmbedded(fixture, env).catch((error: unknown) => {
      removeFixture();
      throw error;
    });
    return embeddedGateway(fixture, embedded, traceFile, removeFixture);
  }
  const gateway = new ProcessGateway(fixture, { ...options, env }, traceFile, removeFixture);
  try {
    for (const stage of options.startOrder ?? CONSUMERS_FIRST) {
      // Settled, not raced: a failed start is stopped with every process of its stage, none left half-started.
      const started = await Promise.allSettled(stage.map((service) => gateway.startReplicas(service, options.replicas?.[service] ?? 1)));
      const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  } catch (error) {
    await gateway.stop({ kill: true });
    throw error;
  }
  return gateway;
}

class ProcessGateway implements Gateway {
  readonly mode = 'processes' as const;
  private readonly running = new Map<string, AppProcess>();
  private readonly ownEnv = new Map<string, Record<string, string>>();

  constructor(
    readonly fixture: GatewayFixture,
    private readonly options: GatewayOptions,
    readonly traceFile: string,
    private readonly removeFixture: () => void,
  ) {}

  get adminKey(): string {
    return this.fixture.adminKey;
  }
  get databaseUrl(): string {
    return this.options.database?.url ?? '';
  }
  get intakeUrl(): string {
    return this.process('intake').url;
  }
  get authorizationUrl(): string {
    return this.process('authorization').url;
  }
  get reconcilerUrl(): string {
    return this.process('reconciler').url;
  }

  urls(service: GatewayService): string[] {
    return this.replicasOf(service).map((app) => app.url);
  }

  process(service: GatewayService, replica = 0): AppProcess {
    const found = this.running.get(key(service, replica));
    if (!found) throw new Error(`${service} replica ${replica} is not running`);
    return found;
  }

  output(service: GatewayService, replica = 0): string {
    return this.running.get(key(service, replica))?.output() ?? '';
  }

  outputs(tail = 3000): string {
    return [...this.running.entries()].map(([name, app]) => `--- ${name}\n${app.output().slice(-tail)}`).join('\n');
  }

  async startReplicas(service: GatewayService, count: number): Promise<void> {
    // One after the other: replicas run the same migrations and create the same JetStream consumers.
    for (let replica = 0; replica < count; replica += 1) await this.start(service, replica);
  }

  async start(service: GatewayService, replica = 0, env?: Record<string, string>): Promise<AppProcess> {
    const own = env ?? this.ownEnv.get(key(service, replica)) ?? this.options.serviceEnv?.[service] ?? {};
    const nodeArgs = this.options.nodeArgs?.[service];
    const app = await startAppProcess(service, { ...this.fixture.env(this.options.env), ...own }, nodeArgs ? { nodeArgs } : {});
    this.ownEnv.set(key(service, replica), own);
    this.running.set(key(service, replica), app);
    return app;
  }

  async kill(service: GatewayService, replica = 0, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.running.get(key(service, replica))?.kill(signal);
  }

  async restart(service: GatewayService, options: RestartOptions = {}): Promise<AppProcess> {
    const replica = options.replica ?? 0;
    const current = this.running.get(key(service, replica));
    if (options.graceful) await current?.stop();
    else await current?.kill('SIGKILL');
    return this.start(service, replica, options.env);
  }

  async stop(options: { readonly kill?: boolean } = {}): Promise<void> {
    await Promise.all([...this.running.values()].map((app) => (options.kill ? app.kill('SIGKILL') : app.stop())));
    this.removeFixture();
  }

  private replicasOf(service: GatewayService): AppProcess[] {
    return [...this.running.entries()]
      .filter(([name]) => name.startsWith(`${service}-`))
      .sort(([a], [b]) => replicaOf(a) - replicaOf(b))
      .map(([, app]) => app);
  }
}

function embeddedGateway(fixture: GatewayFixture, embedded: EmbeddedStart, traceFile: string, removeFixture: () => void): Gateway {
  const notSeparate = (what: string): never => {
    throw new Error(`the embedded start runs every service in one process: no ${what} of one service`);
  };
  return {
    mode: 'embedded',
    fixture,
    adminKey: fixture.adminKey,
    databaseUrl: embedded.databaseUrl,
    intakeUrl: embedded.url,
    authorizationUrl: embedded.url,
    reconcilerUrl: embedded.url,
    traceFile,
    urls: () => [embedded.url],
    process: () => notSeparate('process'),
    output: () => embedded.output(),
    outputs: (tail = 3000) => `--- embedded\n${embedded.output().slice(-tail)}`,
    start: () => notSeparate('start'),
    kill: () => notSeparate('kill'),
    restart: () => notSeparate('restart'),
    async stop() {
      await embedded.stop();
      removeFixture();
    },
  };
}

function key(service: GatewayService, replica: number): string {
  return `${service}-${replica}`;
}

function replicaOf(name: string): number {
  return Number(name.slice(name.lastIndexOf('-') + 1));
}
