import { type ExecutionStatus } from '@onceport/contracts';
import { type CampaignCommand, CampaignExhausted, campaignDecider, grantOfUse, remainingUses } from './campaign-decider';
import { checkReplay } from './replay-check';
import { divergenceOf } from './divergence';
import { RunRefusal, runDecider, type RunCommand } from './run-decider';
import { type RunExecution } from './run-execution';
import { type RunState } from './run-state';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const meta = (minutes: number) => ({ now: at(minutes) });

let counter = 0;
function execution(status: ExecutionStatus, overrides: Partial<RunExecution> = {}): RunExecution {
  counter += 1;
  const id = `exe_01JNQ7ZK3M8V2C4D6F8G0H${String(counter).padStart(4, '0')}`;
  return {
    executionId: id,
    tool: 'send_email',
    attempt: 1,
    fingerprint: `fp-${id}`,
    target: 'https://mail.example.com',
    acceptedAt: at(counter / 100).toISOString(),
    status,
    effectClass: 'idempotent',
    ledgerRetentionEndsAt: at(60 * 24).toISOString(),
    effectDone: status === 'completed' || status === 'completed_result_not_delivered',
    repeats: null,
    ...overrides,
  };
}

function fold(commands: RunCommand[]): RunState {
  let state = runDecider.initialState();
  for (const command of commands) for (const event of runDecider.decide(command, state)) state = runDecider.evolve(state, event);
  return state;
}

const open: RunCommand = {
  type: 'OpenRun',
  data: { runId: 'campaign-12', actor: 'agent:mailer', trigger: 'ticket:OPS-812' },
  metadata: meta(0),
};
const safe = { safe: true, unsafe: [] };

describe('the run decider (DESIGN.md §7)', () => {
  it('opens a run at attempt 1; opening it again with the same trigger records nothing', () => {
    const state = fold([open]);
    expect(state).toMatchObject({ status: 'open', trigger: 'ticket:OPS-812', attempts: [{ attempt: 1 }] });
    expect(runDecider.decide(open, state)).toEqual([]);
  });

  it('refuses another actor or another trigger under the same run id', () => {
    const state = fold([open]);
    const other = (data: Partial<typeof open.data>) => () =>
      runDecider.decide({ ...open, data: { ...open.data, ...data } } as RunCommand, state);
    expect(other({ actor: 'agent:other' })).toThrow(expect.objectContaining({ code: 'run_of_another_actor' }));
    expect(other({ trigger: 'ticket:OPS-999' })).toThrow(expect.objectContaining({ code: 'trigger_differs' }));
  });

  it('starts attempt n+1 when the check is safe, once: a second start after the same attempt is refused', () => {
    const replay: RunCommand = {
      type: 'StartReplay',
      data: { after: 1, requestedBy: 'agent:mailer', check: safe, force: null },
      metadata: meta(5),
    };
    const state = fold([open, replay]);
    expect(state).toMatchObject({ attempts: [{ attempt: 1 }, { attempt: 2, forced: null }] });
    expect(() => runDecider.decide(replay, state)).toThrow(expect.objectContaining({ code: 'attempt_moved_on' }));
  });

  it('refuses an unsafe replay with the check attached; forced, it records who, why and what may repeat', () => {
    const charge = execution('completed', { tool: 'charge_payment', effectClass: 'irreversible', ledgerRetentionEndsAt: null });
    const check = checkReplay([charge], at(5));
    const ask = (force: { by: string; reason: string } | null): RunCommand => ({
      type: 'StartReplay',
      data: { after: 1, requestedBy: force?.by ?? 'agent:mailer', check, force },
      metadata: meta(5),
    });
    let refusal: unknown;
    try {
      runDecider.decide(ask(null), fold([open]));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(RunRefusal);
    expect((refusal as RunRefusal).check?.unsafe).toEqual([
      { executionId: charge.executionId, tool: 'charge_payment', attempt: 1, status: 'completed', reason: 'irreversible_completed' },
    ]);
    const [event] = runDecider.decide(ask({ by: 'admin:ops', reason: 'customer asked for a second charge' }), fold([open]));
    expect(event).toMatchObject({
      type: 'RunAttemptStarted',
      data: { attempt: 2, forced: { by: 'admin:ops', reason: 'customer asked for a second charge', unsafeCount: 1, unsafe: check.unsafe } },
    });
  });

  it('a replay of a run that does not exist is refused', () => {
    const replay: RunCommand = { type: 'StartReplay', data: { after: 1, requestedBy: 'x', check: safe, force: null }, metadata: meta(1) };
    expect(() => runDecider.decide(replay, fold([]))).toThrow(expect.objectContaining({ code: 'run_not_found' }));
  });
});

describe('checkReplay', () => {
  const now = at(10);
  it.each([
    ['read-only and completed', execution('completed', { effectClass: 'none', ledgerRetentionEndsAt: null })],
    ['completed inside its ledger retention', execution('completed')],
    ['failed', execution('failed', { effectClass: 'irreversible' })],
    ['denied', execution('denied', { effectClass: 'irreversible' })],
    ['reverted ("done, then undone")', execution('reverted', { effectClass: 'irreversible' })],
  ])('%s is safe', (_name, run) => {
    expect(checkReplay([run], now)).toEqual({ safe: true, unsafe: [] });
  });

  it.each([
    [
      'irreversible and completed',
      'irreversible_completed',
      execution('completed', { effectClass: 'irreversible', ledgerRetentionEndsAt: null }),
    ],
    ['idempotent without a ledger', 'completed_without_ledger', execution('completed', { ledgerRetentionEndsAt: null })],
    ['ledger lapsed', 'ledger_retention_lapsed', execution('completed', { ledgerRetentionEndsAt: at(5).toISOString() })],
    ['expired after completing (no ledger answers any more)', 'completed_without_ledger', execution('expired', { effectDone: true })],
    ['unknown', 'outcome_unknown', execution('dispatched_unknown')],
    ['in review', 'awaiting_review', execution('needs_review')],
    ['awaiting approval', 'in_flight', execution('awaiting_approval')],
  ] as const)('%s is unsafe: %s', (_name, reason, run) => {
    const check = checkReplay([run], now);
    expect(check.safe).toBe(false);
    expect(check.unsafe.map((effect) => effect.reason)).toEqual([reason]);
  });

  it('one unsafe effect among many safe ones makes the whole replay unsafe, and only that one is listed', () => {
    const runs = [...Array.from({ length: 40 }, () => execution('completed')), execution('dispatched_unknown', { tool: 'send_email' })];
    const check = checkReplay(runs, now);
    expect(check.safe).toBe(false);
    expect(check.unsafe).toHaveLength(1);
  });
});

describe('divergenceOf', () => {
  it('attempt 2 asked 40 again and created 60; attempt 3 dropped 10 → exactly those 10 are not requested again', () => {
    const first = Array.from({ length: 41 }, () => execution('completed', { attempt: 1 }));
    const second = Array.from({ length: 59 }, () => execution('completed', { attempt: 2 }));
    const all = new Map([...first, ...second].map((e) => [e.executionId, e]));
    const calls = [
      ...first.map((e) => ({ attempt: 1, executionId: e.executionId })),
      ...first.map((e) => ({ attempt: 2, executionId: e.executionId })),
      ...second.map((e) => ({ attempt: 2, executionId: e.executionId })),
      ...[...first, ...second].slice(10).map((e) => ({ attempt: 3, executionId: e.executionId })),
    ];
    const [one, two, three] = divergenceOf(3, calls, all);
    expect(one).toMatchObject({ requestedAgain: [], notRequestedAgain: [], stillOpen: [] });
    expect(one?.new).toHaveLength(41);
    expect(two?.requestedAgain).toHaveLength(41);
    expect(two?.new).toHaveLength(59);
    expect(two?.notRequestedAgain).toEqual([]);
    expect(three?.new).toEqual([]);
    expect(three?.notRequestedAgain.map((e) => e.executionId)).toEqual(first.slice(0, 10).map((e) => e.executionId));
  });

  it('an effect repeated by a new execution (same intent) counts as asked again; open outcomes are listed', () => {
    const lapsed = execution('completed', { attempt: 1 });
    const again = execution('completed', { attempt: 2, fingerprint: lapsed.fingerprint, repeats: lapsed.executionId });
    const unknown = execution('dispatched_unknown', { attempt: 1 });
    const all = new Map([lapsed, again, unknown].map((e) => [e.executionId, e]));
    const calls = [lapsed, unknown]
      .map((e) => ({ attempt: 1, executionId: e.executionId }))
      .concat({ attempt: 2, executionId: again.executionId });
    const [, two] = divergenceOf(2, calls, all);
    expect(two?.requestedAgain.map((e) => e.executionId)).toEqual([lapsed.executionId]);
    expect(two?.notRequestedAgain).toEqual([]);
    expect(two?.stillOpen.map((e) => e.executionId)).toEqual([unknown.executionId]);
  });
});

describe('the campaign decider', () => {
  const grant = (count: number, by = 'ops:alice'): CampaignCommand => ({
    type: 'GrantCampaign',
    data: { runId: 'refunds-1', tool: 'charge_payment', count, by, reason: 'refund campaign', shown: [] },
    metadata: meta(1),
  });
  const use = (executionId: string): CampaignCommand => ({ type: 'UseCampaign', data: { executionId }, metadata: meta(2) });
  const foldCampaign = (commands: CampaignCommand[]) => {
    let state = campaignDecider.initialState();
    for (const command of commands)
      for (const event of campaignDecider.decide(command, state)) state = campaignDecider.evolve(state, event);
    return state;
  };

  it('counts uses up to the granted count; a second use by the same execution records nothing; then it is exhausted', () => {
    const state = foldCampaign([grant(2), use('exe_a'), use('exe_b')]);
    expect(remainingUses(state)).toBe(0);
    expect(campaignDecider.decide(use('exe_a'), state)).toEqual([]);
    expect(() => campaignDecider.decide(use('exe_c'), state)).toThrow(CampaignExhausted);
    expect(() => campaignDecider.decide(use('exe_c'), foldCampaign([]))).toThrow('no campaign grant for this run and tool');
  });

  it('grants add up, and each use falls under the grant it was taken from, in order', () => {
    const state = foldCampaign([grant(1, 'ops:alice'), grant(2, 'ops:bob'), use('exe_a'), use('exe_b')]);
    expect(state.granted).toBe(3);
    expect(grantOfUse(state, 1)?.by).toBe('ops:alice');
    expect(grantOfUse(state, 2)?.by).toBe('ops:bob');
    expect(grantOfUse(state, 4)).toBeNull();
  });
});
