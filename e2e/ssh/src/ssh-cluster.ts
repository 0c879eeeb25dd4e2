import { executionStreamId } from '@onceport/contracts';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type AppProcess, type Gateway, type GatewayService, startGateway } from '@onceport/gateway-harness';
import {
  type CutProxy,
  type SshContractOptions,
  type TestSshd,
  installRecordRun,
  runsOf,
  sshToolEntry,
  startCutProxy,
  startTestSshd,
} from '@onceport/target-channels/testing';
import { stringify } from 'yaml';

export const AGENT_KEY = 'ssh-agent-key-9f2c';

export interface Answer {
  readonly httpStatus: number;
  readonly execution_id: string;
  readonly state: string;
  readonly attached: boolean;
  readonly target_status: number | null;
  readonly result: { body: Record<string, unknown> } | null;
}

/**
 * The four services as processes over a private JetStream and a fresh database, with SSH tools
 * aimed at a real OpenSSH server on loopback (one of them through a proxy that can cut sessions).
 */
export class SshCluster {
  private constructor(
    readonly db: TestDatabase,
    readonly nats: TestNatsServer,
    readonly sshd: TestSshd,
    readonly proxy: CutProxy,
    readonly gateway: Gateway,
  ) {}

  static async start(
    tools: (ctx: { sshd: TestSshd; proxy: CutProxy; recordRun: string }) => Record<string, SshContractOptions>,
  ): Promise<SshCluster> {
    const [db, nats, sshd] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestSshd()]);
    const proxy = await startCutProxy(sshd.port);
    const recordRun = installRecordRun(sshd.dir);
    const entries = Object.entries(tools({ sshd, proxy, recordRun })).map(([name, options]) => sshToolEntry(sshd, { ...options, name }));
    const gateway = await startGateway({
      // No HTTP tool is called here; the demo contracts only need an origin to parse.
      targetUrl: 'http://127.0.0.1:9',
      actors: [{ id: 'agent:ssh', key: AGENT_KEY, tools: '*' }],
      database: db,
      nats,
      contracts: { 'ssh.yaml': stringify({ tools: entries }) },
      env: {
        ONCEPORT_CREDENTIAL_TEST_SSH_KEY: sshd.clientPrivateKey,
        ONCEPORT_DISPATCH_LEASE: '1500',
        ONCEPORT_RECONCILE_SWEEP_MS: '250',
        ONCEPORT_REDELIVER_AFTER_MS: '2000',
        ONCEPORT_PROBE_BACKOFF_MS: '100',
        ONCEPORT_PROBE_BACKOFF_MAX_MS: '500',
      },
      startOrder: [['authorization'], ['dispatcher'], ['reconciler'], ['intake']],
    });
    return new SshCluster(db, nats, sshd, proxy, gateway);
  }

  startApp(app: GatewayService): Promise<AppProcess> {
    return this.gateway.start(app);
  }

  app(name: GatewayService): AppProcess {
    return this.gateway.process(name);
  }

  /** How many times the command tagged `tag` really ran on the host. */
  runs(tag: string): number {
    return runsOf(this.sshd.dir, tag);
  }

  /** An agent's REST call (a retry is the very same call again). */
  async call(tool: string, args: Record<string, unknown>, waitMs: number): Promise<Answer> {
    const response = await fetch(`${this.app('intake').url}/v1/executions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENT_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool, arguments: args, wait_ms: waitMs }),
    });
    return { httpStatus: response.status, ...((await response.json()) as Omit<Answer, 'httpStatus'>) };
  }

  async status(executionId: string): Promise<Answer> {
    const response = await fetch(`${this.app('intake').url}/v1/executions/${executionId}`, {
      headers: { authorization: `Bearer ${AGENT_KEY}` },
    });
    return { httpStatus: response.status, ...((await response.json()) as Omit<Answer, 'httpStatus'>) };
  }

  /** The execution's events in order (type and data), straight from the store. */
  async events(executionId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const rows = await this.db.pool.query<{ event_type: string; data: Record<string, unknown> }>(
      'SELECT event_type, data FROM onceport.events WHERE stream_id = $1 ORDER BY stream_version',
      [executionStreamId(executionId)],
    );
    return rows.rows.map((row) => ({ type: row.event_type, data: row.data }));
  }

  async waitFor<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== null) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${this.gateway.outputs()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    await this.gateway.stop();
    await this.proxy.close();
    await Promise.all([this.sshd.stop(), this.nats.stop()]);
    await this.db.drop();
  }
}
