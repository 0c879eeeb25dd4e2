import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey } from '@onceport/config';
import { type AcceptExecution, type ExecutionState, newExecutionId } from '@onceport/domain';
import { PostgresEventStore, executionStream, CommandHandler } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { TestNatsServer, waitFor } from '@onceport/messaging/testing';
import { type AppProcess, startAppProcess } from '@onceport/gateway-harness';

const ADMIN_KEY = `op_${randomBytes(24).toString('base64url')}`;
const AGENT_KEY = `op_${randomBytes(24).toString('base64url')}`;
const CONTRACTS_DIR = join(__dirname, '../../../libs/domain/test/fixtures/contracts');
const TRACE_ID = randomBytes(16).toString('hex');

const ACTORS = `
actors:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey(AGENT_KEY)}]
    tools: [create_deployment, get_build_status]
    session_grant: automatic
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey(ADMIN_KEY)}]
`;

function accept(executionId: string, now: Date): AcceptExecution {
  const record = {
    actor: 'agent:deploy-bot',
    tool: 'get_build_status',
    channel: 'http' as const,
    target: 'https://ci.example.com',
    credential_ref: 'ci-readonly',
    method: 'GET /api/builds/{build_id}',
    arguments: { build_id: 42 },
    intent_scope: 'run:e2e',
  };
  return {
    type: 'AcceptExecution',
    metadata: { now },
    data: {
      executionId,
      tool: record.tool,
      channel: 'http',
      actor: record.actor,
      agentProcess: 'mcp-sess-e2e',
      intentScope: record.intent_scope,
      fingerprint: `hmac-sha256:k1:${randomBytes(32).toString('hex')}`,
      record,
      arguments: record.arguments,
      effectClass: 'none',
      approval: 'none',
      correlationWindowMs: 60_000,
      ledgerRetentionMs: null,
      clientIdempotencyKey: null,
    },
  };
}

/** The authorization service as its own process, against a private JetStream and its own database. */
describe('authorization service (process, JetStream, PostgreSQL)', () => {
  let nats: TestNatsServer;
  let db: TestDatabase;
  let dir: string;
  let app: AppProcess;
  let commands: CommandHandler;
  let env: Record<string, string>;

  beforeAll(async () => {
    [nats, db, dir] = await Promise.all([TestNatsServer.start(), createTestDatabase(), mkdtemp(join(tmpdir(), 'onceport-authz-e2e-'))]);
    await writeFile(join(dir, 'actors.yaml'), ACTORS);
    env = {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      ONCEPORT_CONTRACTS_DIR: CONTRACTS_DIR,
      ONCEPORT_ACTORS_FILE: join(dir, 'actors.yaml'),
      ONCEPORT_TRACE_FILE: join(dir, 'spans.jsonl'),
    };
    app = await startAppProcess('authorization', env);
    commands = new CommandHandler(new PostgresEventStore(db.pool));
  });
  afterAll(async () => {
    await app?.kill();
    await Promise.all([nats?.stop(), db?.drop(), dir && rm(dir, { recursive: true, force: true })]);
  });

  /** Accepts a call the way intake does: into the store. The app's relay and consumer take it from there. */
  async function acceptAndWait(): Promise<ExecutionState> {
    const executionId = newExecutionId(Date.now(), randomBytes(10));
    const traceparent = `00-${TRACE_ID}-${randomBytes(8).toString('hex')}-01`;
    await commands.handle(executionStream(executionId), (_loaded, now) => accept(executionId, now), {
      causationId: 'e2e:intake',
      traceparent,
    });
    await waitFor(
      async () => (await commands.load(executionStream(executionId))).state.status !== 'accepted',
      30_000,
      `a decision on ${executionId}`,
    );
    return (await commands.load(executionStream(executionId))).state;
  }

  const admin = (path: string, init: RequestInit = {}, key: string | null = ADMIN_KEY) =>
    fetch(`${app.url}/v1/admin/vault${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    });

  it('authorizes an accepted execution of an allowed actor, on the session grant of its new agent process', async () => {
    expect(await acceptAndWait()).toMatchObject({ status: 'authorized', progress: { authorization: { basis: 'session_grant' } } });
  });

  it('answers 401 problem details to an admin call without an admin key, and never echoes the key', async () => {
    for (const key of [null, AGENT_KEY]) {
      const response = await admin('/lock', { method: 'POST', body: '{"reason":"try"}' }, key);
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ status: 401, title: 'Admin key required' });
      expect(text).not.toContain(AGENT_KEY);
    }
  });

  it('denies every new call with vault_locked once an admin locked the vault', async () => {
    const locked = await admin('/lock', { method: 'POST', body: '{"reason":"e2e: incident drill"}' });
    expect(locked.status).toBe(200);
    expect(await locked.json()).toMatchObject({ status: 'locked', by: 'ops:alice', reason: 'e2e: incident drill', changed: true });
    expect(await (await admin('')).json()).toMatchObject({ status: 'locked', by: 'ops:alice' });
    expect(await acceptAndWait()).toMatchObject({
      status: 'denied',
      denial: {
        code: 'vault_locked',
        reason: 'The vault is locked: e2e: incident drill (by ops:alice). Every call is denied until an operator unlocks it.',
      },
    });
  });

  it('stops cleanly on SIGTERM: consumers first, then connections, well before the kill deadline', async () => {
    const started = Date.now();
    const code = await app.stop(20_000);
    // Every shutdown hook ran and the process exited 0 (a kill would give no code, a failure 1).
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(app.output()).not.toMatch(/"level":"error"|Error during shutdown/);
    // The decisions were traced as `authorize <tool>` in the executions' traces.
    const spans = (await readFile(env['ONCEPORT_TRACE_FILE']!, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; traceId: string; service: string });
    expect(
      spans.filter((span) => span.name === 'authorize get_build_status' && span.traceId === TRACE_ID && span.service === 'authorization'),
    ).toHaveLength(2);
  });

  it('refuses to start with a broken contract file before it connects anywhere, naming the file, the field and what is expected', async () => {
    const brokenDir = join(dir, 'broken-contracts');
    await mkdir(brokenDir);
    await writeFile(join(brokenDir, 'deploy.yaml'), 'tools:\n  - name: deploy\n    effect: sometimes\n');
    // PostgreSQL and NATS point at closed ports: the operator still sees the contract error, not a connection error.
    const start = startAppProcess('authorization', {
      ...env,
      ONCEPORT_CONTRACTS_DIR: brokenDir,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      NATS_URL: 'nats://127.0.0.1:1',
    });
    await expect(start).rejects.toThrow(/exited with 78 before listening/);
    await expect(start).rejects.toThrow(join(brokenDir, 'deploy.yaml'));
    await expect(start).rejects.toThrow(/effect/);
  });

  it('refuses to start with an idempotent tool that nothing backs (no idempotency header, no probe), naming the file, the tool and the fix', async () => {
    const blindDir = join(dir, 'blind-contracts');
    await mkdir(blindDir);
    const tool = [
      'tools:',
      '  - name: send_email',
      '    description: Send one e-mail.',
      '    channel: http',
      '    target: { origin: https://mail.example.com, method: POST, path: /v3/messages }',
      '    effect: idempotent',
      '',
    ].join('\n');
    await writeFile(join(blindDir, 'mail.yaml'), tool);
    const start = startAppProcess('authorization', {
      ...env,
      ONCEPORT_CONTRACTS_DIR: blindDir,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      NATS_URL: 'nats://127.0.0.1:1',
    });
    await expect(start).rejects.toThrow(/exited with 78 before listening/);
    await expect(start).rejects.toThrow(
      `${join(blindDir, 'mail.yaml')}: tools[0].effect: got effect idempotent for tool "send_email" with neither target.idempotency_header nor a probe`,
    );
    await expect(start).rejects.toThrow(/or effect: irreversible/);
  });

  it('refuses to start with a broken actors file, naming the file, the field and what is expected', async () => {
    await writeFile(join(dir, 'broken.yaml'), 'actors:\n  - id: agent:x\n    api_keys_sha256: [plain-key]\n    tools: []\n');
    const start = startAppProcess('authorization', { ...env, ONCEPORT_ACTORS_FILE: join(dir, 'broken.yaml') });
    await expect(start).rejects.toThrow(/exited with 78 before listening/);
    await expect(start).rejects.toThrow(
      `${join(dir, 'broken.yaml')}: actors[0].api_keys_sha256[0]: got a value that is not 64 hex characters`,
    );
    await expect(start).rejects.not.toThrow(/plain-key/);
  });
});
