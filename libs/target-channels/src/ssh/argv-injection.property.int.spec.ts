import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { buildBareScript } from './build-script';
import { SshChannel } from './ssh-channel';
import { type TestSshd, installRecordRun, newExecutionId, runsOf, sshContract, startTestSshd } from '../testing';

/** Characters a shell would act on if an argument ever reached one unquoted. */
const HOSTILE = [
  ';',
  '|',
  '&',
  '$',
  '(',
  ')',
  '`',
  "'",
  '"',
  '\\',
  '\n',
  '\r',
  '\t',
  ' ',
  '-',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  '<',
  '>',
  '#',
  '~',
  '!',
  '=',
  '%',
];
const hostileText = fc.oneof(
  fc.string({ unit: fc.constantFrom(...HOSTILE, 'a', 'Z', '0'), maxLength: 24 }),
  fc.constantFrom('$(touch /tmp/onceport-pwned)', '`id`', "'; exit 1; '", '--help', '-rf', '"$@"', "x'\\''y", '\n\n', ''),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);
const NAMES = ['a0', 'a1', 'a2', 'a3'] as const;
const argumentsArb = fc.record({ a0: hostileText, a1: hostileText, a2: hostileText, a3: hostileText });

describe('argv injection: the host receives exactly the intended argv', () => {
  it('the quoting survives a real POSIX shell for any bytes but NUL (local /bin/sh, many runs)', () => {
    fc.assert(
      fc.property(fc.array(hostileText, { maxLength: 6 }), (argv) => {
        const run = spawnSync('/bin/sh', ['-s'], { input: buildBareScript(['/usr/bin/printf', '%s\\0', ...argv]) });
        const expected = argv.length === 0 ? '\0' : argv.map((a) => `${a}\0`).join('');
        expect(run.stdout.toString('utf8')).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  describe('through the SSH channel and the marker wrapper on a real OpenSSH server', () => {
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

    it('every argument arrives as one argv element, byte for byte, and the command runs once per execution', async () => {
      const contract = sshContract(sshd, {
        argv: [recordRun, 'prop', '0', '0', '{a0}', '{a1}', 'lit;eral $(x)', '--opt={a2}', '{a3}'],
        properties: Object.fromEntries(NAMES.map((n) => [n, { type: 'string' }])),
        allowDashArguments: [...NAMES],
      });
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(argumentsArb, async (args) => {
          const outcome = await ssh.send({ contract, executionId: newExecutionId(), arguments: args, credential: sshd.clientPrivateKey });
          runs += 1;
          expect(outcome.kind).toBe('observed');
          const body = JSON.parse((outcome as { body: Buffer }).body.toString());
          const intended = [args.a0, args.a1, 'lit;eral $(x)', `--opt=${args.a2}`, args.a3];
          expect(body.stdout).toBe(intended.map((a) => `${a}\0`).join(''));
        }),
        // Each run is a fresh SSH connection; 25 keeps this under a minute on a quiet 2-core machine
        // (the 300 local-shell runs above carry the breadth).
        { numRuns: 25 },
      );
      expect(runsOf(sshd.dir, 'prop')).toBe(runs);
    }, 400_000);
  });
});
