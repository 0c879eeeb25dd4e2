import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { recordedHistories } from '@onceport/contracts/testing';
import { AGENT_KEY, type Gateway, eventually, startGateway } from '../testing/gateway-processes';
import { runOnceport } from '../testing/run-cli-in-process';
import { seedHistory } from '../testing/seed-history';

interface Listed {
  approvals: {
    approval_id: string;
    execution_id: string;
    status: string;
    first_dispatched_at: string | null;
    known_outcome: { state: string } | null;
  }[];
}

/** The operator commands, and trace of a live execution, against the real services started as processes. */
describe('the operator commands and trace against the real services', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    // Debug: the most the services ever log, so the sensitive-argument test reads every line there is.
    gateway = await startGateway({ LOG_LEVEL: 'debug' });
  }, 180_000);
  afterAll(() => gateway?.stop());

  const onceport = (...argv: string[]) => runOnceport(argv, gateway.cliEnv);
  const charge = async (customer: string): Promise<string> => {
    const answer = await gateway.agentCall('charge_payment', {
      customer_id: customer,
      amount_cents: 1250,
      card_token: 'tok_visa_4242',
      description: 'renewal',
    });
    expect(answer.status).toBeLessThan(300);
    return answer.body['execution_id'] as string;
  };
  const pendingFor = async (executionId: string) => {
    const listed = await eventually(
      async () => JSON.parse((await onceport('approvals', 'list', '--json')).stdout) as Listed,
      (l) => l.approvals.some((a) => a.execution_id === executionId),
    );
    const approval = listed.approvals.find((a) => a.execution_id === executionId);
    expect(approval).toBeDefined();
    return approval!;
  };

  it("lists a pending approval with the approver's view, refuses a grant without a reason, grants it, and refuses to reject it after", async () => {
    const executionId = await charge('cus_cli1');
    const { approval_id: approvalId } = await pendingFor(executionId);

    const human = await onceport('approvals', 'list');
    expect(human.code).toBe(0);
    const block = human.stdout.split('\n\n').find((b) => b.includes(approvalId))!;
    expect(block).toMatch(new RegExp(`^${approvalId}  pending  per_use  execution ${executionId}`));
    expect(block).toMatch(/actor +agent:cli-test/);
    expect(block).toMatch(/tool +charge_payment → POST http:\/\/127\.0\.0\.1:\d+\/v1\/charges/);
    expect(block).toMatch(/record +\{.*"customer_id":"cus_cli1"/);
    expect(block).toMatch(/dispatched +never/);
    expect(block).toMatch(/retries +0 attached — No retry has arrived/);

    expect(await onceport('approvals', 'grant', approvalId)).toMatchObject({ code: 2, stderr: expect.stringContaining('--reason') });
    expect(
      await runOnceport(['approvals', 'grant', approvalId, '--reason', 'ok'], { ...gateway.cliEnv, ONCEPORT_ADMIN_KEY: 'adm_wrong' }),
    ).toMatchObject({ code: 4, stderr: expect.stringMatching(/^onceport: authorization service: .*\(401 unauthorized\)\n$/) });
    expect(await onceport('approvals', 'show', 'apr_nothing_here')).toMatchObject({ code: 3 });

    const granted = await onceport('approvals', 'grant', approvalId, '--reason', 'customer confirmed by phone');
    expect(granted).toMatchObject({
      code: 0,
      stdout: `granted ${approvalId} (execution ${executionId}): now granted, by ops:test-admin\n`,
    });
    expect(await onceport('approvals', 'reject', approvalId, '--reason', 'changed my mind')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('(409 '),
    });

    // Granted, the dispatcher sends it once; the approver's view then shows the first dispatch and the outcome.
    const after = await eventually(
      async () => JSON.parse((await onceport('approvals', 'show', approvalId, '--json')).stdout) as Listed['approvals'][number],
      (a) => a.known_outcome?.state === 'completed_result_not_delivered' || a.known_outcome?.state === 'completed',
    );
    expect(after).toMatchObject({ status: 'granted', first_dispatched_at: expect.any(String) });
    const trace = await onceport('trace', executionId, '--json');
    const { answers } = JSON.parse(trace.stdout);
    expect(answers.first_call_authorized_and_dispatched).toMatchObject({
      authorized: true,
      dispatched: true,
      sentence: expect.stringContaining('on approval'),
    });
    // A REST call that names no Onceport-Agent-Process: the trace says it cannot tell, rather than guess.
    expect(answers.agent_processes).toMatchObject({ answer: 'unknown' });
    expect(answers.target_answered).toMatchObject({ answer: 'yes', target_status: 201 });
  });

  it('rejects an approval with a reason, and reads the admin key from a file', async () => {
    const executionId = await charge('cus_cli2');
    const { approval_id: approvalId } = await pendingFor(executionId);
    const keyFile = join(gateway.fixture.dir, 'admin.key');
    writeFileSync(keyFile, `${gateway.fixture.adminKey}\n`, { mode: 0o600 });
    const env = { ...gateway.cliEnv, ONCEPORT_ADMIN_KEY: undefined };
    const rejected = await runOnceport(
      ['approvals', 'reject', approvalId, '--reason', 'not this customer', '--admin-key-file', keyFile, '--json'],
      env,
    );
    expect(rejected.code).toBe(0);
    expect(JSON.parse(rejected.stdout)).toMatchObject({
      approval_id: approvalId,
      status: 'rejected',
      decision_reason: 'not this customer',
    });
    expect(await runOnceport(['approvals', 'list'], env)).toMatchObject({
      code: 4,
      stderr: 'onceport: no admin key: set ONCEPORT_ADMIN_KEY or pass --admin-key-file <path>\n',
    });
  });

  it('locks and unlocks the vault, and says when nothing changed', async () => {
    expect(await onceport('vault', 'status')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^vault unlocked/) });
    expect(await onceport('vault', 'lock')).toMatchObject({ code: 2 });
    const locked = await onceport('vault', 'lock', '--reason', 'deploy key leaked');
    expect(locked).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^vault locked \(changed now\) by ops:test-admin at \S+: deploy key leaked \[version \d+\]\n$/),
    });
    expect(await onceport('vault', 'lock', '--reason', 'again')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('(already so; nothing changed)'),
    });
    expect(JSON.parse((await onceport('vault', 'status', '--json')).stdout)).toMatchObject({
      status: 'locked',
      by: 'ops:test-admin',
      reason: 'deploy key leaked',
    });
    expect(await onceport('vault', 'unlock', '--reason', 'key rotated')).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^vault unlocked \(changed now\)/),
    });
  });

  it('lists an execution in review and resolves it; the opposite verdict after is refused (1), an unknown one is not found (3)', async () => {
    // An SSH command whose outcome no probe could settle, recorded up to its needs_review.
    const history = recordedHistories['ssh-needs-review-resolved']!;
    const executionId = await seedHistory(gateway.db.pool, history.slice(0, -1));

    const listed = await eventually(
      () => onceport('review', 'list', '--json'),
      (run) => run.stdout.includes(executionId),
    );
    expect(JSON.parse(listed.stdout).reviews).toContainEqual(expect.objectContaining({ execution_id: executionId, state: 'needs_review' }));
    const human = await onceport('review', 'list');
    expect(human.stdout).toMatch(
      new RegExp(
        `^${executionId}  needs_review since \\S+\n  actor +\\S+\n  tool +\\S+\n  record +\\{.*\\}\n  why +.+\n  attempts +1 dispatch attempt\n  last probe +#1 at \\S+: \\w+`,
        'm',
      ),
    );

    expect(await onceport('review', 'resolve', executionId, '--reason', 'checked')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--resolution'),
    });
    const resolved = await onceport(
      'review',
      'resolve',
      executionId,
      '--resolution',
      'applied',
      '--reason',
      'the migration ran: checked the schema version on the host',
    );
    expect(resolved).toMatchObject({
      code: 0,
      stdout: `resolved ${executionId} as applied: now completed_result_not_delivered, by ops:test-admin\n`,
    });
    // The same verdict again is a harmless repeat; the opposite one is refused.
    expect(await onceport('review', 'resolve', executionId, '--resolution', 'applied', '--reason', 'again')).toMatchObject({ code: 0 });
    expect(await onceport('review', 'resolve', executionId, '--resolution', 'not_applied', '--reason', 'second thoughts')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^onceport: reconciler service: .*\(409 not_in_review\)\n$/),
    });
    expect(
      await onceport('review', 'resolve', 'exe_01KJTW0EP04BESEW40JTS6S200', '--resolution', 'not_applied', '--reason', 'x'),
    ).toMatchObject({ code: 3 });
  });

  it('trace answers the five questions on a live reconnect-and-retry: the first connection dropped, a new session called again', async () => {
    const deploy = {
      name: 'create_deployment',
      arguments: { project: 'cli-trace', environment: 'staging', version: '2.0.1', notes: 'first draft' },
    };
    gateway.target.setBehavior({ route: 'deployments', delay_ms: 1500, times: 1 });
    const first = await gateway.mcpClient();
    const firstSession = (first.transport as unknown as { sessionId: string }).sessionId;
    // A raw tools/call on the first session, aborted while the target is still working: the connection is gone.
    const aborted = new AbortController();
    const dropped = fetch(`${gateway.intake.url}/mcp`, {
      method: 'POST',
      signal: aborted.signal,
      headers: {
        authorization: `Bearer ${AGENT_KEY}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': firstSession,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: deploy }),
    })
      .then((r) => r.text())
      .catch(() => 'dropped');
    // Dropped once intake has stored the execution: an abort before intake read the call would cancel it unread.
    await eventually(
      async () =>
        (
          await gateway.db.pool.query(
            "SELECT 1 FROM onceport.events WHERE event_type = 'ExecutionAccepted' AND data::text LIKE '%cli-trace%'",
          )
        ).rowCount,
      (n) => n === 1,
    );
    aborted.abort();
    expect(await dropped).toBe('dropped');
    await eventually(
      async () => gateway.target.effects({ route: 'deployments' }).length,
      (n) => n === 1,
    );
    // The target answers after its delay; the answer has nowhere to go. Only then does the agent call again.
    await eventually(
      async () =>
        (
          await gateway.db.pool.query(
            "SELECT 1 FROM onceport.events WHERE event_type = 'OutcomeObserved' AND data->>'executionId' IN (SELECT data->>'executionId' FROM onceport.events WHERE event_type = 'ExecutionAccepted' AND data->>'tool' = 'create_deployment')",
          )
        ).rowCount,
      (n) => n === 1,
    );

    const second = await gateway.mcpClient();
    const secondSession = (second.transport as unknown as { sessionId: string }).sessionId;
    const answer = (await second.callTool({ ...deploy, arguments: { ...deploy.arguments, notes: 'redrafted after reconnect' } }))
      .structuredContent as { execution_id: string; replay: boolean; attached: boolean };
    expect(answer).toMatchObject({ replay: true, attached: true });
    await Promise.all([first.close(), second.close()]);

    const traced = await eventually(
      async () =>
        JSON.parse((await onceport('trace', answer.execution_id, '--json')).stdout) as {
          timeline: { type: string }[];
          answers: Record<string, Record<string, unknown>>;
        },
      (t) => t.timeline.some((e) => e.type === 'ResultDelivered'),
    );
    expect(traced.timeline.map((e) => e.type)).toEqual([
      'ExecutionAccepted',
      'ExecutionAuthorized',
      'DispatchStarted',
      'OutcomeObserved',
      'RetryAttached',
      'ResultDelivered',
    ]);
    expect(traced.answers['agent_processes']).toMatchObject({ answer: 'two', processes: [firstSession, secondSession] });
    expect(traced.answers['first_call_authorized_and_dispatched']).toMatchObject({ authorized: true, dispatched: true });
    expect(traced.answers['target_answered']).toMatchObject({ answer: 'yes', target_status: 201 });
    expect(traced.answers['delivery_failed_after_completion']).toMatchObject({
      answer: 'yes',
      sentence: expect.stringContaining('as a replay to a later call'),
    });
    expect(traced.answers['later_calls']).toMatchObject({ attached: 1, idempotency_keys: [], redispatch_attempts: 0, new_executions: [] });
    expect(gateway.target.effects({ route: 'deployments' })).toHaveLength(1);
  });

  it('a sensitive card token is stored and exported sealed, shown redacted by REST and trace, and reaches the target in clear', async () => {
    // charge_payment's contract marks card_token sensitive (its record holds an HMAC) and description generated.
    const secret = 'tok_live_5ecret_7Qx9Lm';
    const generated = 'model wrote: renew the plan for Zyxw';
    const answer = await gateway.agentCall('charge_payment', {
      customer_id: 'cus_clisecret',
      amount_cents: 990,
      card_token: secret,
      description: generated,
    });
    expect(answer.status).toBeLessThan(300);
    const executionId = answer.body['execution_id'] as string;
    await pendingFor(executionId);

    // Stored sealed (AES-256-GCM, bound to this execution): nothing in the store holds the token.
    const stored = await gateway.db.pool.query<{ data: string }>(
      "SELECT data::text AS data FROM onceport.events WHERE stream_id = $1 AND event_type = 'ExecutionAccepted'",
      [`execution-${executionId}`],
    );
    expect(stored.rows[0]?.data).toMatch(/"card_token": \{"\$sealed": "aes-256-gcm:t1:/);
    const everything = await gateway.db.pool.query<{ hits: string }>(
      'SELECT count(*) AS hits FROM onceport.events WHERE data::text LIKE $1',
      ['%5ecret%'],
    );
    expect(everything.rows[0]?.hits).toBe('0');

    const file = join(gateway.fixture.dir, 'secret-export.jsonl');
    expect(await onceport('audit', 'export', '--out', file, '--quiet')).toMatchObject({ code: 0 });
    // The export keeps every column as stored (the hash chain covers them): the token sealed, never opened.
    const exported = readFileSync(file, 'utf8');
    expect(exported).not.toContain('5ecret');
    expect(exported).toContain('"$sealed":"aes-256-gcm:t1:');
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(await onceport('audit', 'verify', '--file', file)).toMatchObject({ code: 0 });

    // The agent's own timeline shows it redacted; the identity arguments as they were.
    const rest = await fetch(`${gateway.intake.url}/v1/executions/${executionId}`, { headers: { authorization: `Bearer ${AGENT_KEY}` } });
    const restText = await rest.text();
    expect(restText).not.toContain('5ecret');
    const timeline = (JSON.parse(restText) as { timeline: { type: string; data: { arguments?: Record<string, unknown> } }[] }).timeline;
    expect(timeline[0]?.data.arguments).toMatchObject({ customer_id: 'cus_clisecret', card_token: '[redacted]' });

    const runs = [
      await onceport('trace', executionId),
      await onceport('trace', executionId, '--json'),
      await onceport('trace', executionId, '--file', file),
      await onceport('trace', executionId, '--file', file, '--json'),
    ];
    for (const run of runs) {
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(executionId);
      expect(run.stdout).not.toContain(secret);
      expect(run.stdout).not.toContain('5ecret');
      expect(run.stdout).not.toContain(generated);
      expect(run.stdout).not.toContain('Zyxw');
    }
    const accepted = (JSON.parse(runs[1]!.stdout) as { timeline: { type: string; data: Record<string, unknown> }[] }).timeline[0]!;
    expect(accepted.type).toBe('ExecutionAccepted');
    expect(accepted.data).not.toHaveProperty('arguments');
    expect(accepted.data['arguments_withheld']).toEqual(['amount_cents', 'card_token', 'currency', 'customer_id', 'description']);
    // What may be shown is the canonical record: identity arguments, the sensitive one as an HMAC.
    expect(accepted.data['record']).toMatchObject({
      tool: 'charge_payment',
      arguments: { customer_id: 'cus_clisecret', card_token: { $hmac: expect.any(String) } },
    });

    // Granted, the dispatcher opens the sealed value right before the request: the target gets the real token.
    const { approval_id: approvalId } = await pendingFor(executionId);
    expect(await onceport('approvals', 'grant', approvalId, '--reason', 'card holder confirmed')).toMatchObject({ code: 0 });
    const effects = await eventually(
      async () =>
        gateway.target
          .effects({ route: 'payments' })
          .filter((effect) => (effect.body as { customer_id?: string }).customer_id === 'cus_clisecret'),
      (found) => found.length > 0,
    );
    expect(effects.map((effect) => effect.body)).toEqual([expect.objectContaining({ card_token: secret })]);

    // Never in a log line or a span of any service: once the dispatcher's span of the call is written (it ends after
    // the token went out), every process's output and the spans of all four are read whole.
    type Span = { service: string; attributes: Record<string, unknown> };
    const spansOf = (text: string): Span[] =>
      text.split('\n').flatMap((line) => {
        try {
          return [JSON.parse(line) as Span];
        } catch {
          return []; // an empty line, or the last one while a process is still appending it
        }
      });
    const traced = await eventually(
      async () => (existsSync(gateway.traceFile) ? readFileSync(gateway.traceFile, 'utf8') : ''),
      (text) => spansOf(text).some((span) => span.service === 'dispatcher' && span.attributes['onceport.execution_id'] === executionId),
    );
    const servicesOfCall = spansOf(traced)
      .filter((span) => span.attributes['onceport.execution_id'] === executionId)
      .map((span) => span.service);
    expect(servicesOfCall).toEqual(expect.arrayContaining(['intake', 'authorization', 'dispatcher']));
    const logs = gateway.logs();
    expect(logs).toContain(executionId);
    for (const [where, text] of [
      ['spans', traced],
      ['logs', logs],
    ] as const) {
      expect({ where, secret: text.includes(secret), fragment: text.includes('5ecret') }).toEqual({
        where,
        secret: false,
        fragment: false,
      });
    }
  });

  it('executions revert: records a finished execution undone (0), repeats harmlessly, refuses an unfinished one (1), unknown (3), no reason (2), wrong key (4)', async () => {
    const finished = await seedHistory(gateway.db.pool, recordedHistories['happy-path']!);
    const waiting = await seedHistory(gateway.db.pool, recordedHistories['awaiting-approval']!);

    expect(await onceport('executions', 'revert', finished)).toMatchObject({ code: 2, stderr: expect.stringContaining('--reason') });
    expect(
      await runOnceport(['executions', 'revert', finished, '--reason', 'refunded'], { ...gateway.cliEnv, ONCEPORT_ADMIN_KEY: 'adm_wrong' }),
    ).toMatchObject({ code: 4, stderr: expect.stringContaining('(401 ') });
    const reverted = await onceport('executions', 'revert', finished, '--reason', 'refunded by hand in the payments console');
    expect(reverted).toMatchObject({ code: 0, stdout: `reverted ${finished}: now reverted, by ops:test-admin\n`, stderr: '' });
    const again = await onceport('executions', 'revert', finished, '--reason', 'again', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ execution_id: finished, state: 'reverted', reverted_by: 'ops:test-admin' });
    const traced = JSON.parse((await onceport('trace', finished, '--json')).stdout) as {
      state: string;
      timeline: { type: string; summary: string }[];
    };
    expect(traced.state).toBe('reverted');
    expect(traced.timeline.filter((e) => e.type === 'ExecutionReverted').map((e) => e.summary)).toEqual([
      'reverted by ops:test-admin: refunded by hand in the payments console',
    ]);

    expect(await onceport('executions', 'revert', waiting, '--reason', 'not yet done')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^onceport: authorization service: .*\(409 not_revertible\)\n$/),
    });
    expect(await onceport('executions', 'revert', 'exe_01KJTW0EP04BESEW40JTS6S299', '--reason', 'x')).toMatchObject({
      code: 3,
      stderr: expect.stringContaining('(404 execution_not_found)'),
    });
    const closed = await closedPort();
    expect(
      await runOnceport(
        ['executions', 'revert', finished, '--reason', 'x', '--authorization-url', `http://127.0.0.1:${closed}`],
        gateway.cliEnv,
      ),
    ).toMatchObject({ code: 5 });
  });

  it('exits 5 when a service cannot be reached', async () => {
    const closed = await closedPort();
    const run = await runOnceport(['vault', 'status', '--authorization-url', `http://127.0.0.1:${closed}`], gateway.cliEnv);
    expect(run).toMatchObject({
      code: 5,
      stderr: `onceport: cannot reach the authorization service at http://127.0.0.1:${closed}: ECONNREFUSED\n`,
    });
  });
});

/** A loopback port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
