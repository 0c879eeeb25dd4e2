import { createServer } from 'node:net';
import type { Pool } from 'pg';
import { trace, type Tracer } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import {
  type EventDefinition,
  type ExecutionEventEnvelope,
  VAULT_STREAM_ID,
  VaultLockedEvent,
  VaultUnlockedEvent,
  createEvent,
  executionStreamId,
} from '@onceport/contracts';
import { loadToolContracts } from '@onceport/config';
import type { ToolContract } from '@onceport/domain';
import { type JsonObject, PostgresEventStore, executionStream, CommandHandler, ResultStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type WireEvent, toWireEvent } from '@onceport/messaging';
import { allMigrations } from '@onceport/service-kit';
import { CredentialResolver } from '@onceport/target-channels';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { type Dispatcher, createDispatcher } from '../src/create-dispatcher';
import type { DispatcherConfig } from '../src/dispatcher.config';
import type { DispatcherLog } from '../src/logging/dispatcher-log';
import { SecretScrubber } from '../src/secrets/secret-scrubber';
import { type ContractsDir, writeDemoContracts } from './contracts-dir';
import { type SeedOptions, seedExecution } from './seed-execution';

export const DEPLOY_SECRET = 'dpl_live_7Qx9-test-credential';

export const TEST_CONFIG: DispatcherConfig = {
  dispatcherId: 'dispatcher-test',
  concurrency: 8,
  leaseMs: 60_000,
  retries: 3,
  retryBackoffMs: 50,
};

export interface DispatchOverrides {
  readonly config?: Partial<DispatcherConfig>;
  readonly contracts?: readonly ToolContract[];
  readonly credentialEnv?: NodeJS.ProcessEnv;
  readonly credentialsDir?: string | null;
  readonly tracer?: Tracer;
  /** The dispatcher's commands and results run on this pool (e.g. one that counts its statements). */
  readonly pool?: Pool;
}

/**
 * Real parts for the dispatcher's integration tests: a database of its own, a test target, the
 * demo contracts pointed at it, and dispatchers built exactly as the module builds them.
 */
export class DispatchHarness {
  readonly logLines: string[] = [];
  /** The key ring intake would seal with; every dispatcher of the harness opens with it. */
  readonly sealer = testArgumentSealer();
  private readonly dispatchers: Dispatcher[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly target: TestTarget,
    private readonly contractsDir: ContractsDir,
    readonly contracts: readonly ToolContract[],
    readonly store: PostgresEventStore,
    readonly commands: CommandHandler,
    readonly results: ResultStore,
  ) {}

  static async start(): Promise<DispatchHarness> {
    const db = await createTestDatabase(allMigrations.filter((m) => !m.id.startsWith('00')));
    const target = await startTestTarget();
    const contractsDir = await writeDemoContracts(target.url);
    const { contracts } = await loadToolContracts(contractsDir.dir);
    const store = new PostgresEventStore(db.pool);
    return new DispatchHarness(
      db,
      target,
      contractsDir,
      contracts,
      store,
      new CommandHandler(store, { pool: db.pool }),
      new ResultStore(db.pool),
    );
  }

  contract(name: string): ToolContract {
    const found = this.contracts.find((c) => c.name === name);
    if (!found) throw new Error(`no demo contract ${name}`);
    return found;
  }

  /** The demo contracts with every HTTP origin replaced (e.g. by one where nothing listens). */
  contractsAt(origin: string): ToolContract[] {
    return this.contracts.map((c) => (c.channel === 'http' ? { ...c, target: { ...c.target, origin } } : c));
  }

  dispatcher(overrides: DispatchOverrides = {}): Dispatcher {
    const credentials = new CredentialResolver(
      overrides.credentialEnv ?? { ONCEPORT_CREDENTIAL_DEPLOY_API: DEPLOY_SECRET },
      overrides.credentialsDir ?? null,
    );
    const secrets = new SecretScrubber(credentials.secretValues());
    const log: DispatcherLog = (level, message, fields) => this.logLines.push(JSON.stringify({ level, message, ...fields }));
    const own = overrides.pool;
    const dispatcher = createDispatcher({
      commands: own ? new CommandHandler(new PostgresEventStore(own), { pool: own }) : this.commands,
      results: own ? new ResultStore(own) : this.results,
      tracer: overrides.tracer ?? trace.getTracer('dispatcher-test'),
      contracts: overrides.contracts ?? this.contracts,
      config: { ...TEST_CONFIG, ...overrides.config },
      credentials,
      secrets,
      sealer: this.sealer,
      log,
    });
    this.dispatchers.push(dispatcher);
    return dispatcher;
  }

  seed(tool = 'create_deployment', options: SeedOptions = {}): Promise<string> {
    return seedExecution(this.commands, this.contract(tool), options);
  }

  /** The stored event of `type` (the last one of it) as it arrives over JetStream. */
  async wire(executionId: string, type: string): Promise<WireEvent> {
    const stored = (await this.store.readStream(executionStreamId(executionId))).filter((e) => e.type === type).at(-1);
    if (!stored) throw new Error(`${executionId} has no ${type}`);
    return toWireEvent(stored);
  }

  async events(executionId: string): Promise<readonly ExecutionEventEnvelope[]> {
    return (await this.commands.load(executionStream(executionId))).events;
  }

  async status(executionId: string): Promise<string> {
    return (await this.commands.load(executionStream(executionId))).state.status;
  }

  /** An operator locking the vault, as the authorization service's admin API records it. */
  lockVault(by: string, reason: string): Promise<void> {
    return this.appendToVault(VaultLockedEvent, { by, reason, lockedAt: new Date().toISOString() }, by);
  }

  unlockVault(by: string, reason: string): Promise<void> {
    return this.appendToVault(VaultUnlockedEvent, { by, reason, unlockedAt: new Date().toISOString() }, by);
  }

  private async appendToVault<Type extends string, Data>(
    definition: EventDefinition<Type, Data>,
    data: Data,
    actor: string,
  ): Promise<void> {
    const metadata = {
      eventId: randomUUID(),
      correlationId: VAULT_STREAM_ID,
      causationId: 'test',
      occurredAt: new Date().toISOString(),
      actor,
    };
    const event = createEvent(definition, data, metadata);
    const stored = {
      eventId: metadata.eventId,
      type: event.type,
      schemaVersion: event.schemaVersion,
      data: event.data as unknown as JsonObject,
      metadata: metadata as unknown as JsonObject,
    };
    await this.store.append(VAULT_STREAM_ID, [stored], { expectedVersion: 'any' });
  }

  async close(): Promise<void> {
    await Promise.all(this.dispatchers.splice(0).map((d) => d.channel.close()));
    await this.target.stop();
    await this.contractsDir.remove();
    await this.db.drop();
  }
}

/** No trace context from the transport: the handler falls back to the event's own. */
export const NO_HEADERS = { traceparent: null, tracestate: null } as const;

/** An origin on a loopback port where nothing listens: every connect is refused. */
export async function deadOrigin(): Promise<string> {
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
  return `http://127.0.0.1:${port}`;
}
