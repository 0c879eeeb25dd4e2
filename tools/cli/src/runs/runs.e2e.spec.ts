import { AGENT_KEY, type Gateway, eventually, startGateway } from '../testing/gateway-processes';
import { runOnceport } from '../testing/run-cli-in-process';
import type { DivergenceAnswer, RunReportAnswer } from './run-answers';

const DONE = ['completed', 'completed_result_not_delivered'];

/**
 * `onceport runs` against the real services started as processes: a run that charged a payment is
 * refused a replay (exit 1, the unsafe table) until an operator forces it; a campaign replayed with
 * a recipient dropped is named in the divergence report.
 */
describe('onceport runs against the real services', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({ ONCEPORT_CREDENTIAL_MAIL_API: 'sekret-cli-mail' });
  }, 180_000);
  afterAll(() => gateway?.stop());

  // The orchestrator holds the agent key; the operator the admin key. Neither has the other's.
  const asAgent = (...argv: string[]) =>
    runOnceport(argv, { ...gateway.cliEnv, ONCEPORT_ADMIN_KEY: undefined, ONCEPORT_AGENT_KEY: AGENT_KEY });
  const asOperator = (...argv: string[]) => runOnceport(argv, gateway.cliEnv);

  async function openRun(runId: string, trigger: string): Promise<void> {
    const response = await fetch(`${gateway.intake.url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
      body: JSON.stringify({ run_id: runId, trigger }),
    });
    expect(response.status).toBe(201);
  }

  /** The run's report once every execution the run created has its effect done at the target. */
  async function whenAllDone(runId: string, count: number): Promise<RunReportAnswer> {
    const report = await eventually(
      async () => JSON.parse((await asAgent('runs', 'show', runId, '--json')).stdout) as RunReportAnswer,
      (r) => r.executions.length === count && r.executions.every((e) => DONE.includes(e.state)),
    );
    expect(report.executions.map((e) => e.state)).toEqual(Array(count).fill(expect.stringMatching(/^completed/)));
    return report;
  }

  it('a run that charged a payment: replay refused with the unsafe table (exit 1); forced by an admin, it prints what may repeat', async () => {
    await openRun('billing-cli', 'invoice:2026-11');
    const charge = await gateway.agentCall(
      'charge_payment',
      { customer_id: 'cus_runs', amount_cents: 1250, card_token: 'tok_visa_4242', description: 'renewal' },
      { run: { id: 'billing-cli' }, wait_ms: 0 },
    );
    expect(charge.status).toBeLessThan(300);
    const executionId = charge.body['execution_id'] as string;
    const approvals = await eventually(
      async () =>
        JSON.parse((await asOperator('approvals', 'list', '--json')).stdout) as {
          approvals: { approval_id: string; execution_id: string }[];
        },
      (l) => l.approvals.some((a) => a.execution_id === executionId),
    );
    const approval = approvals.approvals.find((a) => a.execution_id === executionId)!;
    expect((await asOperator('approvals', 'grant', approval.approval_id, '--reason', 'invoice confirmed')).code).toBe(0);
    await whenAllDone('billing-cli', 1);

    const refused = await asAgent('runs', 'replay', 'billing-cli');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^onceport: intake service: .*\(409 replay_unsafe\)\n$/);
    const lines = refused.stdout.split('\n');
    expect(lines[0]).toBe('replay of run billing-cli refused: a new attempt would repeat effects that are not replay-safe');
    expect(lines[1]).toMatch(/^ {2}TOOL +EXECUTION +ATTEMPT +STATE +WHY$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^ {2}charge_payment +${executionId} +1 +completed\\S* +irreversible_completed: irreversible \\(or undeclared\\) and completed`,
      ),
    );
    expect(refused.stdout).toContain('onceport runs replay billing-cli --force --reason "<why>"');

    const refusedJson = await asAgent('runs', 'replay', 'billing-cli', '--json');
    expect(refusedJson.code).toBe(1);
    expect(JSON.parse(refusedJson.stdout)).toMatchObject({
      status: 409,
      code: 'replay_unsafe',
      unsafe_tools: [{ tool: 'charge_payment', executions: [{ execution_id: executionId, attempt: 1, reason: 'irreversible_completed' }] }],
    });

    // Forcing takes an admin key: none given, or an agent key posing as one, is said plainly (exit 4).
    const reason = 'the first charge was refunded by hand; take it again';
    expect(await asAgent('runs', 'replay', 'billing-cli', '--force', '--reason', reason)).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(/^onceport: runs replay --force takes an admin key \(an agent key cannot force a replay\)/),
    });
    expect(
      await runOnceport(['runs', 'replay', 'billing-cli', '--force', '--reason', reason], {
        ...gateway.cliEnv,
        ONCEPORT_ADMIN_KEY: AGENT_KEY,
      }),
    ).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(/^onceport: runs replay --force: the key given is not an admin key .*403 admin_required/),
    });
    expect(await asOperator('runs', 'replay', 'billing-cli', '--force')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--reason'),
    });

    const forced = await asOperator('runs', 'replay', 'billing-cli', '--force', '--reason', reason);
    expect({ code: forced.code, stderr: forced.stderr }).toEqual({ code: 0, stderr: '' });
    const out = forced.stdout.split('\n');
    expect(out.slice(0, 3)).toEqual([
      'run billing-cli: attempt 2 started by ops:test-admin',
      `FORCED by ops:test-admin: ${reason}`,
      'this attempt may repeat these effects (the replay check refused them):',
    ]);
    expect(out[4]).toMatch(new RegExp(`^ {2}charge_payment +${executionId} +1 +completed`));

    const shown = await asOperator('runs', 'show', 'billing-cli');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^run billing-cli {2}actor agent:cli-test {2}trigger invoice:2026-11\n/);
    expect(shown.stdout).toMatch(/attempt 1 +started \S+ by agent:cli-test\n/);
    expect(shown.stdout).toContain(`by ops:test-admin — FORCED by ops:test-admin: ${reason} (1 unsafe effect it may repeat)`);
    expect(shown.stdout).toMatch(
      new RegExp(`attempt 1: 1 new, 0 asked again\n.*\n {2}${executionId} +charge_payment +completed\\S* +irreversible`),
    );
    expect(shown.stdout).toContain('attempt 2: 0 new, 0 asked again (no calls yet)');

    const listed = await asAgent('runs', 'list');
    expect(listed.stdout).toMatch(/^RUN +TRIGGER +ATTEMPTS +OPENED +LAST ATTEMPT\n/);
    expect(listed.stdout).toMatch(/\nbilling-cli +invoice:2026-11 +2 /);
    expect(await asOperator('runs', 'list')).toMatchObject({ code: 4, stderr: expect.stringContaining('ONCEPORT_AGENT_KEY') });
    expect(await asAgent('runs', 'show', 'no-such-run')).toMatchObject({ code: 3 });
  });

  it('a campaign replayed without one recipient: divergence names it with target, time and execution id; --json is the API answer', async () => {
    await openRun('campaign-cli', 'schedule:2026-12-01');
    const send = (recipient: string, draft: string) =>
      gateway.agentCall(
        'send_email',
        { recipient, campaign_id: 'winter', subject: `Hello (${draft})`, body: `Dear customer, ${draft}` },
        { run: { id: 'campaign-cli' } },
      );
    const recipients = ['ana@example.com', 'bo@example.com', 'cy@example.com'];
    const first = await Promise.all(recipients.map((to) => send(to, 'first draft')));
    const ids = first.map((call) => call.body['execution_id'] as string);
    await whenAllDone('campaign-cli', 3);

    const replayed = await asAgent('runs', 'replay', 'campaign-cli');
    expect(replayed).toMatchObject({ code: 0, stderr: '' });
    expect(replayed.stdout).toBe(
      'run campaign-cli: attempt 2 started by agent:cli-test\nthe replay check: every effect so far is replay-safe (read-only, never happened, or covered by a ledger)\n',
    );
    // Attempt 2 re-drafts every body and drops cy: ana and bo are asked again, cy is not.
    const again = await Promise.all(recipients.slice(0, 2).map((to) => send(to, 'second draft')));
    expect(again.map((call) => call.body['execution_id'])).toEqual(ids.slice(0, 2));

    const json = await asAgent('runs', 'divergence', 'campaign-cli', '--json');
    expect(json.code).toBe(0);
    const api = await fetch(`${gateway.intake.url}/v1/runs/campaign-cli/divergence`, { headers: { authorization: `Bearer ${AGENT_KEY}` } });
    const report = JSON.parse(json.stdout) as DivergenceAnswer;
    expect(report).toEqual(await api.json());
    const second = report.attempts[1]!;
    expect(second.requested_again.map((e) => e.execution_id).sort()).toEqual(ids.slice(0, 2).sort());
    expect(second.new).toEqual([]);
    expect(second.not_requested_again.map((e) => e.execution_id)).toEqual([ids[2]]);
    const dropped = second.not_requested_again[0]!;
    expect(dropped.target).toEqual(expect.any(String));

    const human = await asOperator('runs', 'divergence', 'campaign-cli');
    expect(human.code).toBe(0);
    const [head, attempt1, attempt2] = human.stdout.trimEnd().split('\n\n');
    expect(head).toBe('run campaign-cli: divergence by attempt');
    expect(attempt1).toMatch(/^attempt 1\n {2}requested again \(hits on an earlier attempt\): none\n {2}new in this attempt: 3\n/);
    const rows = attempt2!.split('\n');
    expect(rows[0]).toBe('attempt 2');
    expect(rows[1]).toBe('  requested again (hits on an earlier attempt): 2');
    expect(rows[2]).toMatch(/^ {4}EXECUTION +TOOL +FROM ATTEMPT +STATE +TARGET +ACCEPTED AT$/);
    const forgotten = rows.indexOf('  done in an earlier attempt but NOT requested again: 1');
    expect(rows.slice(rows.indexOf('  new in this attempt: none'), forgotten + 1)).toHaveLength(2);
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(rows[forgotten + 2]).toMatch(
      new RegExp(`^ {4}${ids[2]} +send_email +1 +completed\\S* +${escape(dropped.target!)} +${escape(dropped.accepted_at)}$`),
    );
    expect(rows[forgotten + 3]).toBe('  still open from earlier attempts (outcome unknown or in review): none');
  });
});
