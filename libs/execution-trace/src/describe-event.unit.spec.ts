import { parseEvent } from '@onceport/contracts';
import { recordedHistories } from '@onceport/contracts/testing';
import { describeEvent } from './describe-event';

describe('describeEvent: runs in a trace', () => {
  const history = (recordedHistories['run-attempt-2-ledger-hit'] ?? []).map((raw) => parseEvent(raw));

  it('names the run and attempt of an acceptance, and of a retry from a later attempt', () => {
    const accepted = history.find((event) => event.type === 'ExecutionAccepted');
    const attached = history.find((event) => event.type === 'RetryAttached');
    expect(accepted && describeEvent(accepted)).toContain('run campaign-winter-2026 attempt 1');
    expect(attached && describeEvent(attached)).toContain('(run campaign-winter-2026 attempt 2)');
  });

  it('says which execution an acceptance repeats, and why when the agent said so', () => {
    const accepted = history.find((event) => event.type === 'ExecutionAccepted');
    if (accepted?.type !== 'ExecutionAccepted') throw new Error('no acceptance recorded');
    const repeats = { executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J40', deliberate: true, reason: 'the customer asked twice' };
    expect(describeEvent({ ...accepted, data: { ...accepted.data, repeats } })).toContain(
      'deliberately repeats (the customer asked twice) exe_01JNQ7ZK3M8V2C4D6F8G0H2J40',
    );
  });
});
