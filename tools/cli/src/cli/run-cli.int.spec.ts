import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runOnceport } from '../testing/run-cli-in-process';

const COMMANDS = [
  ['approvals'],
  ['approvals', 'list'],
  ['approvals', 'show'],
  ['approvals', 'grant'],
  ['approvals', 'reject'],
  ['review'],
  ['review', 'list'],
  ['review', 'resolve'],
  ['vault'],
  ['vault', 'status'],
  ['vault', 'lock'],
  ['vault', 'unlock'],
  ['executions'],
  ['executions', 'revert'],
  ['quarantine'],
  ['quarantine', 'list'],
  ['quarantine', 'retry'],
  ['quarantine', 'release'],
  ['runs'],
  ['runs', 'list'],
  ['runs', 'show'],
  ['runs', 'replay'],
  ['runs', 'divergence'],
  ['trace'],
  ['audit'],
  ['audit', 'export'],
  ['audit', 'verify'],
  ['contracts'],
  ['contracts', 'import'],
];

describe('onceport: help, usage errors, and the installed bin', () => {
  it('answers --help on every command with its usage and the exit codes, exit 0', async () => {
    for (const command of COMMANDS) {
      const run = await runOnceport([...command, '--help']);
      expect({ command, code: run.code, stderr: run.stderr }).toEqual({ command, code: 0, stderr: '' });
      expect(run.stdout).toContain(`onceport ${command[0]}`);
      expect(run.stdout).toContain('Usage:');
      expect(run.stdout).toContain('5  cannot reach the service or the database');
    }
    expect((await runOnceport(['--help'])).stdout).toMatch(/^onceport — operate an Onceport gateway/);
  });

  it('gives usage errors exit 2 and one line on stderr', async () => {
    for (const argv of [
      ['frobnicate'],
      ['approvals', 'frobnicate'],
      ['approvals', 'list', '--status', 'maybe'],
      ['approvals', 'list', '--colour'],
      ['review', 'resolve'],
      ['executions', 'undo'],
      ['executions', 'revert'],
      ['executions', 'revert', 'exe_x'],
      ['vault', 'status', 'extra'],
      ['trace'],
      ['trace', 'a', 'b'],
      ['quarantine', 'purge'],
      ['quarantine', 'list', '--status', 'lost'],
      ['quarantine', 'list', 'extra'],
      ['runs', 'rewind'],
      ['runs', 'show'],
      ['runs', 'divergence', 'a', 'b'],
      ['runs', 'list', '--limit', '0'],
      ['runs', 'replay', 'run-1', '--reason', 'no force'],
      ['runs', 'replay', 'run-1', '--force'],
      ['runs', 'show', 'run-1', '--force'],
      ['contracts', 'export'],
      ['contracts', 'import'],
    ]) {
      const run = await runOnceport(argv, { DATABASE_URL: 'postgres://unused' });
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(run.stderr).toMatch(/^onceport: [^\n]+\n$/);
    }
    expect(await runOnceport([])).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('Usage: onceport <command>') });
  });

  it('runs as a process through its bin shim, from any directory, with the exit code as its status', () => {
    const bin = join(__dirname, '../../bin/onceport.js');
    const help = spawnSync(bin, ['audit', 'verify', '--help'], { cwd: '/', encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('onceport audit verify');
    const wrong = spawnSync(bin, ['vault', 'status'], { cwd: '/', encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect({ status: wrong.status, stderr: wrong.stderr }).toEqual({
      status: 4,
      stderr: 'onceport: no admin key: set ONCEPORT_ADMIN_KEY or pass --admin-key-file <path>\n',
    });
  });
});
