import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type SshToolContract, type ToolContract, parseKeyring } from '@onceport/domain';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { CredentialResolver, HttpChannel, SshChannel } from '@onceport/target-channels';
import {
  type CutProxy,
  type SshContractOptions,
  type TestSshd,
  installRecordRun,
  runsOf,
  sshContract,
  startCutProxy,
  startTestSshd,
} from '@onceport/target-channels/testing';
import { recordUnknownExecution } from '../testing/unknown-execution';
import { SettleExecutionHandler } from './settle-execution.handler';
import { executionStream } from '@onceport/event-store';

const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);

describe('settling SSH executions from the durable marker (real PostgreSQL, real OpenSSH server)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let sshd: TestSshd;
  let proxy: CutProxy;
  let recordRun: string;
  const http = new HttpChannel();
  const ssh = new SshChannel();
  const contracts = new Map<string, ToolContract>();

  const handler = () =>
    new SettleExecutionHandler({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts,
      channel: http,
      sealer: testArgumentSealer(),
      credentials: new CredentialResolver({ ONCEPORT_CREDENTIAL_TEST_SSH_KEY: sshd.clientPrivateKey }, null),
      reconcilerId: 'r-ssh',
      limits: { maxProbes: 3, probeBackoffMs: 10, maxProbeBackoffMs: 20, maxAttempts: 3 },
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    runtime = await openServicePorts({
      serviceName: 'reconciler-ssh-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:4222',
      delivery: 'in_process',
    });
    sshd = await startTestSshd();
    proxy = await startCutProxy(sshd.port);
    recordRun = installRecordRun(sshd.dir);
  });
  afterAll(async () => {
    await proxy?.close();
    await sshd?.stop();
    await http.close();
    await runtime?.close();
    await db?.drop();
  });

  function tool(name: string, options: SshContractOptions): SshToolContract {
    const contract = sshContract(sshd, { name, ...options });
    contracts.set(name, contract);
    return contract;
  }

  /** Accepted, authorized, dispatched and reported unknown, as a dispatcher would leave it. */
  const unknownExecution = (contract: SshToolContract): Promise<string> =>
    recordUnknownExecution(runtime.commands, { contract, keyring, reason: 'connection_lost: test' });
  const load = (id: string) => runtime.commands.load(executionStream(id));
  const types = async (id: string) => (await load(id)).events.map((e) => e.type);

  it('the command completed: settled completed from the marker, exit status and output kept (1 run)', async () => {
    const contract = tool('m_done', { argv: [recordRun, 'r-done', '0', '0', 'out'] });
    const id = await unknownExecution(contract);
    await ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey }); // the run whose answer was lost

    expect(await handler().settle(id, { causationId: 'test' })).toMatchObject({ done: 'settle', status: 'completed_result_not_delivered' });
    const settled = (await load(id)).events.at(-1);
    expect(settled).toMatchObject({
      type: 'OutcomeSettled',
      data: { settlement: 'completed', targetStatus: 0, reason: expect.stringContaining('exit status 0') },
    });
    const stored = await runtime.results.get(settled?.type === 'OutcomeSettled' ? (settled.data.result?.ref ?? '') : '');
    expect(JSON.parse(stored?.body.toString() ?? '{}')).toMatchObject({ exit_status: 0, stdout: 'out\0' });
    expect(runsOf(sshd.dir, 'r-done')).toBe(1);
  });

  it('the command exited non-zero: settled failed with its exit status', async () => {
    const contract = tool('m_fail', { argv: [recordRun, 'r-fail', '0', '9'] });
    const id = await unknownExecution(contract);
    await ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });

    expect(await handler().settle(id, { causationId: 'test' })).toMatchObject({ status: 'failed' });
    expect((await load(id)).events.at(-1)).toMatchObject({ type: 'OutcomeSettled', data: { settlement: 'failed', targetStatus: 9 } });
  });

  it('no marker: the command never started, so it is authorized again for a re-dispatch (0 runs so far)', async () => {
    const contract = tool('m_absent', { argv: [recordRun, 'r-absent', '0', '0'] });
    mkdirSync(join(sshd.dir, 'markers'), { recursive: true, mode: 0o700 }); // a host that ran commands before
    const id = await unknownExecution(contract);

    expect(await handler().settle(id, { causationId: 'test' })).toMatchObject({ status: 'authorized' });
    expect(await types(id)).toEqual(expect.arrayContaining(['ProbeAttempted', 'OutcomeSettled']));
    expect((await load(id)).events.find((e) => e.type === 'ProbeAttempted')).toMatchObject({
      data: { verdict: 'not_applied', detail: expect.stringContaining('never started') },
    });
    expect(runsOf(sshd.dir, 'r-absent')).toBe(0);
  });

  it('the marker directory was wiped after the run: needs_review, never authorized again (1 run)', async () => {
    const markerDir = join(sshd.dir, 'wiped-markers');
    const contract = tool('m_wiped', { argv: [recordRun, 'r-wiped', '0', '0'], markerDir });
    const id = await unknownExecution(contract);
    await ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey }); // ran; its answer was lost
    rmSync(markerDir, { recursive: true });

    expect(await handler().settle(id, { causationId: 'test' })).toMatchObject({ status: 'needs_review' });
    expect((await load(id)).events.find((e) => e.type === 'ProbeAttempted')).toMatchObject({
      data: { verdict: 'cant_tell', detail: expect.stringContaining('marker-dir-missing') },
    });
    expect((await load(id)).events.at(-1)).toMatchObject({ type: 'OutcomeSettled', data: { settlement: 'needs_review' } });
    expect((await types(id)).filter((type) => type === 'ExecutionAuthorized')).toHaveLength(1); // the first one only
    expect(runsOf(sshd.dir, 'r-wiped')).toBe(1);
  });

  it('still running: nothing is recorded and it is read again later; once finished it settles from the marker (1 run)', async () => {
    // Runs 12 s, so the first settle (a new SSH session) still finds it running on a loaded machine.
    const contract = tool('m_running', { argv: [recordRun, 'r-running', '12', '0'], port: proxy.port, timeout: '1m' });
    const id = await unknownExecution(contract);
    const sending = ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
    while (runsOf(sshd.dir, 'r-running') === 0) await sleep(50);
    proxy.cutAll();
    expect(await sending).toMatchObject({ kind: 'unknown' });

    const settler = handler();
    const first = await settler.settle(id, { causationId: 'test' });
    expect(first).toMatchObject({ done: 'wait', status: 'dispatched_unknown' });
    expect(await types(id)).not.toContain('ProbeAttempted');

    let outcome = first;
    for (const deadline = Date.now() + 45_000; Date.now() < deadline && outcome.done === 'wait';) {
      await sleep(100);
      outcome = await settler.settle(id, { causationId: 'test' });
    }
    expect(outcome).toMatchObject({ done: 'settle', status: 'completed_result_not_delivered' });
    expect(runsOf(sshd.dir, 'r-running')).toBe(1);
  });

  it.each(['none', 'idempotent'] as const)(
    'an SSH tool with effect %s whose session dropped mid-command is settled from the marker, never sent again (1 run)',
    async (effect) => {
      const tag = `r-drop-${effect}`;
      const contract = tool(`m_drop_${effect}`, { argv: [recordRun, tag, '2', '0', 'out'], port: proxy.port, timeout: '1m', effect });
      expect(contract.probe).toEqual({ kind: 'marker' });
      const id = await unknownExecution(contract);
      const sending = ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
      while (runsOf(sshd.dir, tag) === 0) await sleep(50);
      proxy.cutAll();
      expect(await sending).toMatchObject({ kind: 'unknown' });

      const settler = handler();
      let outcome = await settler.settle(id, { causationId: 'test' });
      for (let i = 0; i < 300 && outcome.done === 'wait'; i++) {
        await sleep(100);
        outcome = await settler.settle(id, { causationId: 'test' });
      }
      expect(outcome).toMatchObject({ done: 'settle', status: 'completed_result_not_delivered' });
      expect((await load(id)).events.at(-1)).toMatchObject({
        type: 'OutcomeSettled',
        data: { settlement: 'completed', targetStatus: 0, reason: expect.stringContaining('exit status 0') },
      });
      expect((await types(id)).filter((type) => type === 'DispatchStarted')).toHaveLength(1);
      expect(runsOf(sshd.dir, tag)).toBe(1);
    },
  );

  it('an unreadable marker (started, no command left, no exit status) goes to needs_review', async () => {
    const contract = tool('m_unreadable', { argv: [recordRun, 'r-unreadable', '0', '0'] });
    const id = await unknownExecution(contract);
    mkdirSync(join(sshd.dir, 'markers', id), { recursive: true });
    writeFileSync(join(sshd.dir, 'markers', id, 'started'), '2026-11-30T00:00:00Z\n');

    expect(await handler().settle(id, { causationId: 'test' })).toMatchObject({ status: 'needs_review' });
    expect((await load(id)).events.at(-1)).toMatchObject({
      type: 'OutcomeSettled',
      data: { settlement: 'needs_review', reason: expect.stringContaining('started-without-exit-status') },
    });
  });

  it('a tool without markers is treated as irreversible: unknown goes to needs_review without a probe', async () => {
    const contract = tool('m_bare', { argv: [recordRun, 'r-bare', '0', '0'], markers: false });
    const id = await unknownExecution(contract);

    expect(await handler().settle(id, { causationId: 'test' })).toMatchObject({ status: 'needs_review' });
    expect(await types(id)).not.toContain('ProbeAttempted');
  });

  it('a marker directory other users can write goes to needs_review: a marker there cannot be trusted', async () => {
    const parsed = tool('m_unsafe', { argv: [recordRun, 'r-unsafe', '0', '0'] });
    const markerDir = join(sshd.dir, 'world-writable-markers');
    mkdirSync(markerDir);
    chmodSync(markerDir, 0o777);
    const contract = { ...parsed, target: { ...parsed.target, markerDir } };
    contracts.set(contract.name, contract);
    const id = await unknownExecution(contract);

    expect(await handler().settle(id, { causationId: 'test' })).toMatchObject({ status: 'needs_review' });
    expect((await load(id)).events.at(-1)).toMatchObject({
      type: 'OutcomeSettled',
      data: { settlement: 'needs_review', reason: expect.stringContaining('marker-dir-unsafe') },
    });
    expect(runsOf(sshd.dir, 'r-unsafe')).toBe(0);
  });
});
