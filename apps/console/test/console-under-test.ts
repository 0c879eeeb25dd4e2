import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { executionStreamId } from '@onceport/contracts';
import { recordedHistories } from '@onceport/contracts/testing';
import { type JsonObject, PostgresEventStore } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer } from '@onceport/messaging/testing';
import { type AppProcess, type FixtureOAuth, type Gateway, startAppProcess, startGateway } from '@onceport/gateway-harness';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { type Browser, chromium } from 'playwright-core';
import { buildConsoleWeb } from '../scripts/build-web';

export const AGENT_KEY = 'key-console-agent-8x2v';
/** Card tokens are sensitive in charge_payment's contract: no page of the console may show one. */
export const CARD = 'tok_visa_4242424242';

/** Debian's chromium (CHROMIUM_BIN, else on the PATH): playwright-core downloads no browser. */
export function chromiumPath(): string {
  const given = process.env['CHROMIUM_BIN'];
  if (given) return given;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error("no chromium: run tools/dev-services.sh (it installs Debian's chromium) or set CHROMIUM_BIN");
  }
}

/** The four services as processes (the gateway harness), the console as its own process in front of them, and a headless chromium. */
export interface ConsoleUnderTest {
  readonly db: TestDatabase;
  readonly target: TestTarget;
  readonly gateway: Gateway;
  readonly console: AppProcess;
  readonly browser: Browser;
  readonly adminKey: string;
  /** An agent's REST call (answered at once with its state: wait_ms 0). */
  agentCall(
    tool: string,
    args: Record<string, unknown>,
    extra?: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** What the agent is told about an execution now. */
  agentStatus(executionId: string): Promise<Record<string, unknown>>;
  /** Appends a recorded history (all but its last `drop` events) as the services would have; returns its execution id. */
  seedHistory(name: string, drop?: number): Promise<string>;
  stop(): Promise<void>;
}

/** For operators' OAuth sign-in: the actors file's `oauth:` section, and more of the console's environment. */
export interface ConsoleUnderTestOptions {
  readonly oauth?: FixtureOAuth;
  readonly consoleEnv?: Record<string, string>;
}

export async function startConsoleUnderTest(options: ConsoleUnderTestOptions = {}): Promise<ConsoleUnderTest> {
  const assets = mkdtempSync(join(tmpdir(), 'onceport-console-web-'));
  const [db, nats, target] = await Promise.all([createTestDatabase(), TestNatsServer.start(), startTestTarget(), buildConsoleWeb(assets)]);
  const stopped: (() => Promise<unknown>)[] = [
    async () => rmSync(assets, { recursive: true, force: true }),
    () => db.drop(),
    () => nats.stop(),
    () => target.stop(),
  ];
  const stop = async (): Promise<void> => {
    for (const step of stopped.reverse()) await step();
  };
  try {
    const gateway = await startGateway({
      targetUrl: target.url,
      actors: [{ id: 'agent:console', key: AGENT_KEY, tools: '*' }],
      database: db,
      nats,
      ...(options.oauth ? { oauth: options.oauth } : {}),
      env: {
        ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'sekret-console-pay',
        ONCEPORT_CREDENTIAL_MAIL_API: 'sekret-console-mail',
        ONCEPORT_CREDENTIAL_DEPLOY_API: 'sekret-console-deploy',
        ONCEPORT_ANSWER_WAIT_MS: '3000',
        ONCEPORT_RECONCILE_SWEEP_MS: '300',
      },
    });
    stopped.push(() => gateway.stop());
    const consoleApp = await startAppProcess('console', {
      ONCEPORT_INTAKE_URL: gateway.intakeUrl,
      ONCEPORT_AUTHORIZATION_URL: gateway.authorizationUrl,
      ONCEPORT_RECONCILER_URL: gateway.reconcilerUrl,
      ONCEPORT_CONSOLE_ASSETS_DIR: assets,
      ONCEPORT_CONSOLE_POLL_MS: '300',
      ...options.consoleEnv,
    });
    stopped.push(() => consoleApp.stop());
    const executablePath = chromiumPath();
    if (!existsSync(executablePath)) throw new Error(`CHROMIUM_BIN ${executablePath} does not exist`);
    // --no-sandbox: CI runs as root in a container, where chromium's sandbox cannot start.
    const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
    stopped.push(() => browser.close());
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${gateway.intakeUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    return {
      db,
      target,
      gateway,
      console: consoleApp,
      browser,
      adminKey: gateway.adminKey,
      agentCall: (tool, args, extra = {}) => send('POST', '/v1/executions', { tool, arguments: args, wait_ms: 0, ...extra }),
      agentStatus: async (executionId) => (await send('GET', `/v1/executions/${executionId}`)).body,
      async seedHistory(name, drop = 1) {
        const history = recordedHistories[name] as readonly {
          type: string;
          schemaVersion: number;
          data: JsonObject;
          metadata: JsonObject;
        }[];
        const events = history.slice(0, history.length - drop);
        const executionId = String(events[0]?.data['executionId']);
        await new PostgresEventStore(db.pool).append(
          executionStreamId(executionId),
          events.map((e) => ({
            eventId: String(e.metadata['eventId']),
            type: e.type,
            schemaVersion: e.schemaVersion,
            data: e.data,
            metadata: e.metadata,
          })),
          { expectedVersion: 'any' },
        );
        return executionId;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls `probe` until `ok` or the deadline: a state waited for, never a guessed pause. */
export async function eventually<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
