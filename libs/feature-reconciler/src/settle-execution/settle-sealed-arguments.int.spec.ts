import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadToolContracts } from '@onceport/config';
import {
  type ArgumentSealer,
  type HttpToolContract,
  type ToolContract,
  newExecutionId,
  parseKeyring,
  sealSensitiveArguments,
} from '@onceport/domain';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { CredentialResolver, HttpChannel } from '@onceport/target-channels';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { testArgumentSealer, testEncryptionKeys } from '@onceport/service-kit/testing';
import { type TestTarget, startTestTarget } from '@onceport/test-target';
import { recordUnknownExecution } from '../testing/unknown-execution';
import { SettleExecutionHandler } from './settle-execution.handler';
import { executionStream } from '@onceport/event-store';

/** An idempotent tool whose probe renders a sensitive argument: the provider's reference for the call. */
const TOOL = `tools:
  - name: deploy_by_ref
    title: Deploy under a reference
    description: Deploy; the provider files it under a reference only the caller knows.
    channel: http
    target:
      origin: {origin}
      method: POST
      path: /v1/projects/{project}/deployments
      timeout: 5s
      idempotency_header: Idempotency-Key
    credential_ref: deploy-api
    arguments:
      type: object
      properties:
        project: { type: string, pattern: "^[a-z0-9-]{1,40}$" }
        ref: { type: string, minLength: 8 }
      required: [project, ref]
    roles:
      project: identity
      ref: { role: identity, sensitive: true }
    effect: idempotent
    probe:
      method: GET
      path: /v1/deployments/by-key/{ref}
      applied: { status: [200] }
      not_applied: { status: [404] }
`;

describe('the reconciler opens sealed arguments for a probe that renders them (real PostgreSQL, real HTTP target)', () => {
  const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);
  const sealer = testArgumentSealer();
  let db: TestDatabase;
  let runtime: ServicePorts;
  let target: TestTarget;
  let contract: HttpToolContract;
  let channel: HttpChannel;

  beforeAll(async () => {
    db = await createTestDatabase();
    target = await startTestTarget();
    runtime = await openServicePorts({
      serviceName: 'reconciler-sealed-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:4222',
      delivery: 'in_process',
      log: () => undefined,
    });
    const dir = mkdtempSync(join(tmpdir(), 'reconciler-sealed-'));
    writeFileSync(join(dir, 'tool.yaml'), TOOL.replace('{origin}', target.url));
    contract = (await loadToolContracts(dir)).byName.get('deploy_by_ref') as HttpToolContract;
    channel = new HttpChannel();
  });
  afterAll(async () => {
    await channel.close();
    await runtime.close();
    await target.stop();
    await db.drop();
  });

  const handler = (opener: Pick<ArgumentSealer, 'open'>) =>
    new SettleExecutionHandler({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts: new Map<string, ToolContract>([[contract.name, contract]]),
      channel,
      sealer: opener,
      credentials: new CredentialResolver({ ONCEPORT_CREDENTIAL_DEPLOY_API: 'tok_deploy_7f3a' }, null),
      reconcilerId: 'r-sealed',
      limits: { maxProbes: 3, probeBackoffMs: 10, maxProbeBackoffMs: 20, maxAttempts: 3 },
    });

  /**
   * An execution whose outcome is unknown, its `ref` sealed as intake stores it. The reference is the
   * execution id, so the target's by-key lookup finds the effect exactly when the probe was rendered
   * from the opened value.
   */
  async function unknownOutcome(project: string): Promise<string> {
    const executionId = newExecutionId(Date.now(), randomBytes(10));
    const args = { project, ref: executionId };
    await recordUnknownExecution(runtime.commands, {
      executionId,
      contract,
      keyring,
      reason: 'reset after the request was written',
      arguments: args,
      storedArguments: sealSensitiveArguments(contract, executionId, args, sealer),
    });
    // The request reached the target before the connection died.
    await channel.send({ contract, executionId, arguments: args, credential: 't' });
    return executionId;
  }

  it('renders the probe from the opened value: it finds the effect and settles completed, nothing re-sent', async () => {
    const id = await unknownOutcome('sealed-probe');

    expect(await handler(sealer).settle(id, { causationId: 'test' })).toMatchObject({
      done: 'settle',
      status: 'completed_result_not_delivered',
    });
    expect(target.effectCount({ idempotencyKey: id })).toBe(1);
  });

  it("records a probe that can't tell, naming the key, when the value does not open — never a probe from ciphertext", async () => {
    const id = await unknownOutcome('sealed-nokey');

    await handler(testArgumentSealer(testEncryptionKeys('other'))).settle(id, { causationId: 'test' });

    const probes = (await runtime.commands.load(executionStream(id))).events.filter((event) => event.type === 'ProbeAttempted');
    expect(probes[0]).toMatchObject({
      data: {
        verdict: 'cant_tell',
        detail: expect.stringContaining('sealed under key "t1", which ONCEPORT_ENCRYPTION_KEYS does not hold'),
      },
    });
    expect((await runtime.commands.load(executionStream(id))).state.status).not.toBe('completed_result_not_delivered');
    expect(target.effectCount({ idempotencyKey: id })).toBe(1);
  });
});
