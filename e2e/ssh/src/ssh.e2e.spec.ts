import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Answer, SshCluster } from './ssh-cluster';

const OTHER_HOST_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK+g8eV6ygck1rAXrhl2ZXXXp7ywcB3WhHNDGZ3wUFJK';
const SETTLED = new Set(['completed_result_not_delivered', 'completed', 'failed', 'needs_review']);
/** An answer is written before its delivery is recorded, so it says completed_result_not_delivered. */
const COMPLETED = expect.stringMatching(/^completed(_result_not_delivered)?$/);

/**
 * SSH targets end to end: intake, authorization, dispatcher and reconciler as processes, a real
 * OpenSSH server, and for each scenario the number of times the command really ran on the host.
 */
describe('SSH targets across real processes and a real OpenSSH server', () => {
  let cluster: SshCluster;

  beforeAll(async () => {
    cluster = await SshCluster.start(({ sshd, proxy, recordRun }) => ({
      ssh_complete: { argv: [recordRun, 'complete', '0', '0', '{word}'], properties: { word: { type: 'string' } } },
      ssh_cut: { argv: [recordRun, 'cut', '4', '0'], port: proxy.port, timeout: '1m' },
      ssh_killed: { argv: [recordRun, 'killed', '4', '0'], timeout: '5s' },
      ssh_wrong_key: { argv: [recordRun, 'wrong-key', '0', '0'], hostKey: OTHER_HOST_KEY },
      ssh_cut_idempotent: { argv: [recordRun, 'cut-idempotent', '4', '0'], port: proxy.port, timeout: '1m', effect: 'idempotent' },
      ssh_unsafe_dir: { argv: [recordRun, 'unsafe-dir', '0', '0'], markerDir: join(sshd.dir, 'shared-markers') },
    }));
  });
  afterAll(() => cluster?.stop());

  const settled = (executionId: string): Promise<Answer> =>
    cluster.waitFor(`execution ${executionId} to settle`, async () => {
      const answer = await cluster.status(executionId);
      return SETTLED.has(answer.state) ? answer : null;
    });
  /** The final state beside the execution's events from the dispatch on: a wrong settlement then says why. */
  const settledWithTrail = async (executionId: string): Promise<{ state: string; trail: Array<{ type: string; data: unknown }> }> => {
    const { state } = await settled(executionId);
    const events = await cluster.events(executionId);
    const from = events.findIndex((e) => e.type === 'DispatchStarted');
    return { state, trail: events.slice(Math.max(from, 0)) };
  };

  it('a command completes: the agent gets its output and exit status (1 run)', async () => {
    const answer = await cluster.call('ssh_complete', { word: 'hello; $(reboot)' }, 15_000);
    expect(answer).toMatchObject({ state: COMPLETED, target_status: 0 });
    expect(answer.result?.body).toMatchObject({ exit_status: 0, stdout: 'hello; $(reboot)\0', stderr: 'stderr of complete\n' });
    expect(cluster.runs('complete')).toBe(1);
  });

  it('the connection is cut while a long command runs and the agent retries: not started again, settled from the marker (1 run)', async () => {
    const first = await cluster.call('ssh_cut', {}, 500);
    await cluster.waitFor('the command to start on the host', () => (cluster.runs('cut') === 1 ? true : null));
    cluster.proxy.cutAll();
    await cluster.waitFor('the dispatcher to report the outcome unknown', async () =>
      (await cluster.events(first.execution_id)).some((e) => e.type === 'OutcomeUnknown') ? true : null,
    );

    const retry = await cluster.call('ssh_cut', {}, 200);
    expect(retry).toMatchObject({ execution_id: first.execution_id, attached: true });
    expect(cluster.runs('cut')).toBe(1);

    expect(await settledWithTrail(first.execution_id)).toMatchObject({ state: 'completed_result_not_delivered' });
    const events = await cluster.events(first.execution_id);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['RetryAttached', 'OutcomeUnknown', 'OutcomeSettled']));
    expect(events.filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
    expect(events.find((e) => e.type === 'OutcomeSettled')?.data).toMatchObject({ settlement: 'completed', targetStatus: 0 });

    const afterwards = await cluster.call('ssh_cut', {}, 1_000);
    expect(afterwards).toMatchObject({
      execution_id: first.execution_id,
      attached: true,
      state: COMPLETED,
      target_status: 0,
      result: { body: { exit_status: 0 } },
    });
    expect(cluster.runs('cut')).toBe(1);
  });

  it('an idempotent SSH tool whose session is cut is settled from the marker too, never sent again (1 run)', async () => {
    const first = await cluster.call('ssh_cut_idempotent', {}, 500);
    await cluster.waitFor('the command to start on the host', () => (cluster.runs('cut-idempotent') === 1 ? true : null));
    cluster.proxy.cutAll();

    expect(await settledWithTrail(first.execution_id)).toMatchObject({ state: 'completed_result_not_delivered' });
    const events = await cluster.events(first.execution_id);
    expect(events.filter((e) => e.type === 'DispatchStarted')).toHaveLength(1);
    expect(events.find((e) => e.type === 'OutcomeSettled')?.data).toMatchObject({
      settlement: 'completed',
      targetStatus: 0,
      reason: expect.stringContaining('marker'),
    });
    expect(cluster.runs('cut-idempotent')).toBe(1);
  });

  it('a host key that does not match refuses the dispatch before any command is sent (0 runs)', async () => {
    const answer = await cluster.call('ssh_wrong_key', {}, 10_000);
    expect(answer.state).toBe('failed');
    const refusal = (await cluster.events(answer.execution_id)).find((e) => e.type === 'DispatchFailedBeforeSend');
    expect(refusal?.data).toMatchObject({ retryable: false, reason: expect.stringContaining('host key mismatch') });
    expect(cluster.runs('wrong-key')).toBe(0);
  });

  it('a marker directory other users can write (chmod 777) refuses the dispatch before the command runs (0 runs)', async () => {
    const markerDir = join(cluster.sshd.dir, 'shared-markers');
    mkdirSync(markerDir);
    chmodSync(markerDir, 0o777);
    const answer = await cluster.call('ssh_unsafe_dir', {}, 10_000);
    expect(answer.state).toBe('failed');
    const refusal = (await cluster.events(answer.execution_id)).find((e) => e.type === 'DispatchFailedBeforeSend');
    expect(refusal?.data).toMatchObject({
      retryable: false,
      reason: expect.stringContaining(`marker_dir_unsafe: the marker directory ${markerDir}`),
    });
    expect(refusal?.data['reason']).toContain(`chmod go-w ${markerDir}`);
    expect(cluster.runs('unsafe-dir')).toBe(0);
  });

  it('the dispatcher is killed mid-command: the reconciler settles it from the marker (1 run)', async () => {
    const first = await cluster.call('ssh_killed', {}, 200);
    await cluster.waitFor('the command to start on the host', () => (cluster.runs('killed') === 1 ? true : null));
    await cluster.app('dispatcher').kill('SIGKILL');

    expect(await settledWithTrail(first.execution_id)).toMatchObject({ state: 'completed_result_not_delivered' });
    const events = await cluster.events(first.execution_id);
    // Nobody observed the end of the session: the reconciler found the lease expired and read the marker.
    expect(events.map((e) => e.type)).not.toContain('OutcomeObserved');
    expect(events.find((e) => e.type === 'OutcomeSettled')?.data).toMatchObject({
      settlement: 'completed',
      targetStatus: 0,
      reason: expect.stringContaining('marker'),
    });
    expect(cluster.runs('killed')).toBe(1);

    await cluster.startApp('dispatcher');
    const afterwards = await cluster.call('ssh_killed', {}, 1_000);
    expect(afterwards).toMatchObject({
      execution_id: first.execution_id,
      attached: true,
      state: COMPLETED,
      result: { body: { exit_status: 0 } },
    });
    expect(cluster.runs('killed')).toBe(1);
  });
});
