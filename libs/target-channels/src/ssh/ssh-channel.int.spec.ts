import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SshChannel } from './ssh-channel';
import { type TestSshd, installRecordRun, runsOf, sshContract, startCutProxy, startTestSshd } from '../testing';
import { newExecutionId } from './testing/execution-ids';

const TEXT = { type: 'string' };

describe('SshChannel against a real OpenSSH server', () => {
  let sshd: TestSshd;
  let recordRun: string;
  const ssh = new SshChannel();

  beforeAll(async () => {
    sshd = await startTestSshd();
    recordRun = installRecordRun(sshd.dir);
  });
  afterAll(async () => {
    await sshd?.stop();
  });

  it('runs a command once, returns its output by exit status, and refuses a second start of the same execution id', async () => {
    const contract = sshContract(sshd, { argv: [recordRun, 'complete', '0', '3', '{word}'], properties: { word: TEXT } });
    const id = newExecutionId();
    const outcome = await ssh.send({ contract, executionId: id, arguments: { word: 'hello world' }, credential: sshd.clientPrivateKey });
    expect(outcome).toMatchObject({ kind: 'observed', exitStatus: 3, contentType: 'application/json' });
    const body = JSON.parse((outcome as { body: Buffer }).body.toString());
    expect(body).toMatchObject({
      exit_status: 3,
      stdout: 'hello world\0',
      stdout_encoding: 'utf8',
      stdout_truncated: false,
      stderr: 'stderr of complete\n',
    });
    expect(body.started_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(runsOf(sshd.dir, 'complete')).toBe(1);

    const again = await ssh.send({ contract, executionId: id, arguments: { word: 'hello world' }, credential: sshd.clientPrivateKey });
    expect(again).toMatchObject({ kind: 'unknown', code: 'already_started' });
    expect(runsOf(sshd.dir, 'complete')).toBe(1);

    const probe = await ssh.probe({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
    expect(probe).toMatchObject({ kind: 'read', report: { state: 'completed', exitStatus: 3 } });
  });

  it('refuses a host whose key is not the pinned one before sending anything', async () => {
    const otherKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK+g8eV6ygck1rAXrhl2ZXXXp7ywcB3WhHNDGZ3wUFJK';
    const contract = sshContract(sshd, { argv: [recordRun, 'wrong-key', '0', '0'], hostKey: otherKey });
    const outcome = await ssh.send({ contract, executionId: newExecutionId(), arguments: {}, credential: sshd.clientPrivateKey });
    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'host_key_mismatch', retryable: false });
    expect((outcome as { reason: string }).reason).toMatch(
      /pinned ssh-ed25519 SHA256:\S+, the host presented SHA256:\S+; nothing was sent/,
    );
    expect(runsOf(sshd.dir, 'wrong-key')).toBe(0);
  });

  it('refuses arguments starting with "-" unless the contract allows them, and nothing runs', async () => {
    const strict = sshContract(sshd, { argv: [recordRun, 'dash', '0', '0', '{name}'], properties: { name: TEXT } });
    const refused = await ssh.send({
      contract: strict,
      executionId: newExecutionId(),
      arguments: { name: '--delete-all' },
      credential: sshd.clientPrivateKey,
    });
    expect(refused).toMatchObject({ kind: 'failed_before_send', code: 'bad_arguments', retryable: false });
    expect((refused as { reason: string }).reason).toMatch(/"name" starts with "-"/);
    expect(runsOf(sshd.dir, 'dash')).toBe(0);

    const allowed = sshContract(sshd, {
      argv: [recordRun, 'dash', '0', '0', '{name}'],
      properties: { name: TEXT },
      allowDashArguments: ['name'],
    });
    const ran = await ssh.send({
      contract: allowed,
      executionId: newExecutionId(),
      arguments: { name: '--verbose' },
      credential: sshd.clientPrivateKey,
    });
    expect(ran).toMatchObject({ kind: 'observed', exitStatus: 0 });
    expect(runsOf(sshd.dir, 'dash')).toBe(1);
  });

  it('refuses arguments that do not match the schema', async () => {
    const contract = sshContract(sshd, { argv: [recordRun, 'schema', '0', '0', '{n}'], properties: { n: { type: 'integer' } } });
    const outcome = await ssh.send({
      contract,
      executionId: newExecutionId(),
      arguments: { n: 'one; rm -rf /' },
      credential: sshd.clientPrivateKey,
    });
    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'bad_arguments' });
    expect(runsOf(sshd.dir, 'schema')).toBe(0);
  });

  it('a session cut mid-command is unknown; the command finishes on the host and the marker settles it (1 run)', async () => {
    const proxy = await startCutProxy(sshd.port);
    try {
      // The command runs 12 s: long enough for two new SSH sessions (probe, retry) to find it running on a loaded machine.
      const contract = sshContract(sshd, { argv: [recordRun, 'cut', '12', '0'], port: proxy.port });
      const id = newExecutionId();
      const sending = ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
      await waitFor(() => runsOf(sshd.dir, 'cut') === 1);
      proxy.cutAll();
      const outcome = await sending;
      expect(outcome).toMatchObject({ kind: 'unknown', code: 'connection_lost' });

      const direct = sshContract(sshd, { argv: [recordRun, 'cut', '12', '0'] });
      const whileRunning = await ssh.probe({ contract: direct, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
      expect(whileRunning).toMatchObject({ kind: 'read', report: { state: 'running' } });
      const retry = await ssh.send({ contract: direct, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
      expect(retry).toMatchObject({ kind: 'unknown', code: 'already_started' });

      await waitFor(
        async () =>
          (await ssh.probe({ contract: direct, executionId: id, arguments: {}, credential: sshd.clientPrivateKey })).kind === 'read' &&
          (await stateOf(direct, id)) === 'completed',
      );
      expect(await ssh.probe({ contract: direct, executionId: id, arguments: {}, credential: sshd.clientPrivateKey })).toMatchObject({
        report: { state: 'completed', exitStatus: 0 },
      });
      expect(runsOf(sshd.dir, 'cut')).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('a command longer than the contract timeout is unknown, and completes on the host', async () => {
    const contract = sshContract(sshd, { argv: [recordRun, 'slow', '2', '0'], timeout: '1s' });
    const id = newExecutionId();
    expect(await ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey })).toMatchObject({
      kind: 'unknown',
      code: 'timeout',
    });
    await waitFor(async () => (await stateOf(contract, id)) === 'completed');
    expect(runsOf(sshd.dir, 'slow')).toBe(1);
  });

  it('probes: absent for an execution id that never started, unreadable for a marker that started and has no command left', async () => {
    const contract = sshContract(sshd, { argv: [recordRun, 'probe', '0', '0'] });
    mkdirSync(join(sshd.dir, 'markers'), { recursive: true, mode: 0o700 });
    expect(await ssh.probe({ contract, executionId: newExecutionId(), arguments: {}, credential: sshd.clientPrivateKey })).toEqual({
      kind: 'read',
      report: { state: 'absent' },
    });

    const orphan = newExecutionId();
    mkdirSync(join(sshd.dir, 'markers', orphan), { recursive: true });
    writeFileSync(join(sshd.dir, 'markers', orphan, 'started'), '2026-01-01T00:00:00Z\n');
    expect(await ssh.probe({ contract, executionId: orphan, arguments: {}, credential: sshd.clientPrivateKey })).toEqual({
      kind: 'read',
      report: { state: 'unreadable', why: 'started-without-exit-status' },
    });
  });

  it('a marker directory that is missing entirely reads unreadable (marker-dir-missing), never absent: wiped after a run, or never made', async () => {
    const parsed = sshContract(sshd, { argv: [recordRun, 'wiped', '0', '0'] });
    const markerDir = join(sshd.dir, `wiped-markers-${newExecutionId()}`);
    const contract = { ...parsed, target: { ...parsed.target, markerDir } };
    const ran = newExecutionId();
    expect(await ssh.send({ contract, executionId: ran, arguments: {}, credential: sshd.clientPrivateKey })).toMatchObject({
      kind: 'observed',
      exitStatus: 0,
    });
    expect(runsOf(sshd.dir, 'wiped')).toBe(1);
    const missing = { kind: 'read', report: { state: 'unreadable', why: 'marker-dir-missing' } };

    rmSync(markerDir, { recursive: true });
    expect(await ssh.probe({ contract, executionId: ran, arguments: {}, credential: sshd.clientPrivateKey })).toEqual(missing);
    const never = { ...parsed, target: { ...parsed.target, markerDir: join(sshd.dir, 'never-made', 'markers') } };
    expect(await ssh.probe({ contract: never, executionId: newExecutionId(), arguments: {}, credential: sshd.clientPrivateKey })).toEqual(
      missing,
    );
    // A probe only reads: it made no directory, so the next probe still cannot tell.
    expect(existsSync(markerDir)).toBe(false);
    expect(runsOf(sshd.dir, 'wiped')).toBe(1);
  });

  it('caps captured output at max_output_bytes and says so', async () => {
    const contract = sshContract(sshd, { argv: [recordRun, 'big', '0', '0', '{text}'], properties: { text: TEXT }, maxOutputBytes: 10 });
    const outcome = await ssh.send({
      contract,
      executionId: newExecutionId(),
      arguments: { text: 'x'.repeat(5000) },
      credential: sshd.clientPrivateKey,
    });
    const body = JSON.parse((outcome as { body: Buffer }).body.toString());
    expect(body).toMatchObject({ stdout: 'xxxxxxxxxx', stdout_bytes: 5001, stdout_truncated: true });
  });

  it('without markers the command still runs as a quoted argv, with output and exit status over the channel', async () => {
    const contract = sshContract(sshd, { argv: [recordRun, 'bare', '0', '7', '{word}'], properties: { word: TEXT }, markers: false });
    expect(contract.probe).toBeNull();
    const outcome = await ssh.send({
      contract,
      executionId: newExecutionId(),
      arguments: { word: "a'b $(id)" },
      credential: sshd.clientPrivateKey,
    });
    expect(outcome).toMatchObject({ kind: 'observed', exitStatus: 7 });
    expect(JSON.parse((outcome as { body: Buffer }).body.toString())).toMatchObject({ stdout: "a'b $(id)\0" });
    expect(runsOf(sshd.dir, 'bare')).toBe(1);
  });

  it('a marker directory that cannot be made is a refusal before anything ran', async () => {
    const parsed = sshContract(sshd, { argv: [recordRun, 'no-marker', '0', '0'] });
    writeFileSync(join(sshd.dir, 'a-file'), '');
    const contract = { ...parsed, target: { ...parsed.target, markerDir: `${sshd.dir}/a-file/markers` } };
    const outcome = await ssh.send({ contract, executionId: newExecutionId(), arguments: {}, credential: sshd.clientPrivateKey });
    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'marker_unavailable', retryable: false });
    expect(runsOf(sshd.dir, 'no-marker')).toBe(0);
  });

  it('a marker directory other users can write (chmod 777) is refused before the command is sent (0 runs), and a probe calls it unreadable', async () => {
    const parsed = sshContract(sshd, { argv: [recordRun, 'unsafe-dir', '0', '0'] });
    const markerDir = join(sshd.dir, 'shared-markers');
    mkdirSync(markerDir);
    chmodSync(markerDir, 0o777);
    const contract = { ...parsed, target: { ...parsed.target, markerDir } };
    const id = newExecutionId();
    const outcome = await ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
    expect(outcome).toMatchObject({ kind: 'failed_before_send', code: 'marker_dir_unsafe', retryable: false });
    expect((outcome as { reason: string }).reason).toContain(`chmod go-w ${markerDir}`);
    expect(runsOf(sshd.dir, 'unsafe-dir')).toBe(0);
    expect(existsSync(join(markerDir, id))).toBe(false);
    expect(await ssh.probe({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey })).toEqual({
      kind: 'read',
      report: { state: 'unreadable', why: 'marker-dir-unsafe' },
    });
  });

  it("a ~/ marker directory lands under the login user's home on the host", async () => {
    const parsed = sshContract(sshd, { argv: [recordRun, 'home-dir', '0', '0'] });
    const relative = `.onceport-test-${newExecutionId()}`;
    const contract = { ...parsed, target: { ...parsed.target, markerDir: `~/${relative}/markers` } };
    const id = newExecutionId();
    try {
      expect(await ssh.send({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey })).toMatchObject({
        kind: 'observed',
        exitStatus: 0,
      });
      expect(existsSync(join(homedir(), relative, 'markers', id, 'exit'))).toBe(true);
      expect(await ssh.probe({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey })).toMatchObject({
        kind: 'read',
        report: { state: 'completed' },
      });
    } finally {
      rmSync(join(homedir(), relative), { recursive: true, force: true });
    }
  });

  it('a key the host does not know, a missing key and a closed port are refusals before send', async () => {
    const contract = sshContract(sshd, { argv: [recordRun, 'auth', '0', '0'] });
    const stranger = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(await ssh.send({ contract, executionId: newExecutionId(), arguments: {}, credential: stranger })).toMatchObject({
      kind: 'failed_before_send',
      retryable: false,
    });
    expect(await ssh.send({ contract, executionId: newExecutionId(), arguments: {}, credential: null })).toMatchObject({
      kind: 'failed_before_send',
      code: 'missing_credential',
    });
    const closed = sshContract(sshd, { argv: [recordRun, 'auth', '0', '0'], port: 1 });
    expect(
      await ssh.send({ contract: closed, executionId: newExecutionId(), arguments: {}, credential: sshd.clientPrivateKey }),
    ).toMatchObject({
      kind: 'failed_before_send',
      code: 'connect_failed',
      retryable: true,
    });
    expect(runsOf(sshd.dir, 'auth')).toBe(0);
  });

  async function stateOf(contract: ReturnType<typeof sshContract>, id: string): Promise<string> {
    const probe = await ssh.probe({ contract, executionId: id, arguments: {}, credential: sshd.clientPrivateKey });
    return probe.kind === 'read' ? probe.report.state : 'unreachable';
  }
});

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await sleep(100);
  }
}
