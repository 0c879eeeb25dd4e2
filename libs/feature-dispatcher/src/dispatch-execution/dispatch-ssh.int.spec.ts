import type { ExecutionEventEnvelope } from '@onceport/contracts';
import type { SshToolContract } from '@onceport/domain';
import {
  type SshContractOptions,
  type TestSshd,
  installRecordRun,
  runsOf,
  sshContract,
  startTestSshd,
} from '@onceport/target-channels/testing';
import { DispatchHarness, NO_HEADERS } from '../../test/dispatch-harness';
import { seedExecution } from '../../test/seed-execution';

const OTHER_HOST_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK+g8eV6ygck1rAXrhl2ZXXXp7ywcB3WhHNDGZ3wUFJK';

describe('dispatching SSH tools (real PostgreSQL, real OpenSSH server)', () => {
  let harness: DispatchHarness;
  let sshd: TestSshd;
  let recordRun: string;

  beforeAll(async () => {
    sshd = await startTestSshd();
    recordRun = installRecordRun(sshd.dir);
  });
  afterAll(() => sshd?.stop());
  beforeEach(async () => {
    harness = await DispatchHarness.start();
  });
  afterEach(() => harness.close());

  async function dispatch(
    options: SshContractOptions,
    args: Record<string, string> = {},
  ): Promise<{ executionId: string; contract: SshToolContract; events: readonly ExecutionEventEnvelope[] }> {
    const contract = sshContract(sshd, options);
    const executionId = await seedExecution(harness.commands, contract, { arguments: args });
    const { handler } = harness.dispatcher({
      contracts: [contract],
      credentialEnv: { ONCEPORT_CREDENTIAL_TEST_SSH_KEY: sshd.clientPrivateKey },
    });
    await handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);
    return { executionId, contract, events: await harness.events(executionId) };
  }

  it('a command that completes: observed with exit status 0, output stored by reference, 1 run', async () => {
    const { executionId, events } = await dispatch(
      { argv: [recordRun, 'd-complete', '0', '0', '{name}'], properties: { name: { type: 'string' } } },
      { name: 'orders; drop' },
    );
    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
    const observed = events.find((e) => e.type === 'OutcomeObserved');
    expect(observed?.data).toMatchObject({ targetStatus: 0, succeeded: true, result: { contentType: 'application/json' } });
    const stored = await harness.results.get(String((observed?.data as { result: { ref: string } }).result.ref));
    expect(JSON.parse(stored?.body.toString() ?? '{}')).toMatchObject({ exit_status: 0, stdout: 'orders; drop\0' });
    expect(runsOf(sshd.dir, 'd-complete')).toBe(1);
  });

  it('a command that exits non-zero has failed, with its exit status as the target status (1 run)', async () => {
    const { executionId, events } = await dispatch({ argv: [recordRun, 'd-fail', '0', '2'] });
    expect(await harness.status(executionId)).toBe('failed');
    expect(events.find((e) => e.type === 'OutcomeObserved')?.data).toMatchObject({ targetStatus: 2, succeeded: false });
    expect(runsOf(sshd.dir, 'd-fail')).toBe(1);
  });

  it('a host key that does not match refuses the dispatch before anything is sent (0 runs)', async () => {
    const { executionId, events } = await dispatch({ argv: [recordRun, 'd-key', '0', '0'], hostKey: OTHER_HOST_KEY });
    expect(await harness.status(executionId)).toBe('failed');
    expect(events.at(-1)).toMatchObject({
      type: 'DispatchFailedBeforeSend',
      data: { retryable: false, reason: expect.stringMatching(/^host_key_mismatch: host key mismatch for 127\.0\.0\.1:\d+: pinned/) },
    });
    expect(runsOf(sshd.dir, 'd-key')).toBe(0);
  });

  it('a command still running at the contract timeout is an unknown outcome, never a failure (1 run)', async () => {
    // The timeout covers connecting too: 5 s leaves a loaded machine time to start the command (which runs 10 s).
    const { executionId, events } = await dispatch({ argv: [recordRun, 'd-slow', '10', '0'], timeout: '5s' });
    expect(await harness.status(executionId)).toBe('dispatched_unknown');
    expect(events.at(-1)).toMatchObject({ type: 'OutcomeUnknown', data: { reason: expect.stringMatching(/^timeout: /) } });
    expect(runsOf(sshd.dir, 'd-slow')).toBe(1);
  });
});
