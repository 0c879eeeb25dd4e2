import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DispatchHarness, NO_HEADERS } from '../../test/dispatch-harness';

describe('dispatches refused before anything is sent (real PostgreSQL, real HTTP)', () => {
  let harness: DispatchHarness;

  beforeEach(async () => {
    harness = await DispatchHarness.start();
  });
  afterEach(() => harness.close());

  const lastFailure = async (executionId: string) => {
    const last = (await harness.events(executionId)).at(-1);
    if (last?.type !== 'DispatchFailedBeforeSend') throw new Error(`expected DispatchFailedBeforeSend last, got ${last?.type}`);
    return last.data;
  };

  it('fails a dispatch whose credential is not configured, final and with a reason naming the reference: 0 effects', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher({ credentialEnv: {} });

    const summary = await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(summary.attempts).toEqual([expect.objectContaining({ kind: 'closed', outcome: 'failed_before_send', retryable: false })]);
    expect(await harness.status(executionId)).toBe('failed');
    expect(await lastFailure(executionId)).toMatchObject({
      attempt: 1,
      retryable: false,
      reason: expect.stringContaining('"deploy-api" is not configured'),
    });
    expect(harness.target.effectCount()).toBe(0);
  });

  it('reads a credential from the mounted credentials directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'onceport-credentials-'));
    try {
      await writeFile(join(dir, 'deploy-api'), 'from-a-file\n');
      const executionId = await harness.seed();
      const { handler } = harness.dispatcher({ credentialEnv: {}, credentialsDir: dir });

      await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

      expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
      expect(harness.target.effectCount()).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails an SSH tool whose private key is not configured before connecting to the host', async () => {
    const executionId = await harness.seed('run_migration', { arguments: { database: 'orders', version: '20260301120000' } });
    const { handler } = harness.dispatcher();

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(await harness.status(executionId)).toBe('failed');
    expect(await lastFailure(executionId)).toMatchObject({
      retryable: false,
      reason: expect.stringContaining('credential "ssh-deploy" is not configured'),
    });
  });

  it('fails a tool this dispatcher has no contract for', async () => {
    const executionId = await harness.seed();
    const { handler } = harness.dispatcher({ contracts: harness.contracts.filter((c) => c.name !== 'create_deployment') });

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(await lastFailure(executionId)).toMatchObject({
      retryable: false,
      reason: 'no tool contract named "create_deployment" is loaded by this dispatcher',
    });
    expect(harness.target.effectCount()).toBe(0);
  });

  it('fails arguments the contract cannot place in a URL as final, without sending', async () => {
    const executionId = await harness.seed('create_deployment', { arguments: { environment: 'staging', version: '1' } });
    const { handler } = harness.dispatcher();

    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(await lastFailure(executionId)).toMatchObject({ retryable: false });
    expect(harness.target.effectCount()).toBe(0);
  });
});
