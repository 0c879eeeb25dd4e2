// Guard against breaking old executions: the current evolve must still fold every recorded history
// (read through parseEvent, so upcasters run as they would in production) into the state it ended in.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseEvent } from '@onceport/contracts';
import { foldEvents } from './evolve';

const DIR = join(__dirname, '../../../contracts/test/fixtures/histories');

const expected = {
  'happy-path.json': { status: 'completed', attempt: 1, delivered: true, retriesAttached: 0 },
  'unknown-outcome-settled.json': { status: 'completed', attempt: 1, delivered: true, retriesAttached: 1 },
  'denied-retry.json': { status: 'denied', attempt: 0, delivered: false, retriesAttached: 1 },
  'completed-undelivered-retry.json': { status: 'completed', attempt: 1, delivered: true, retriesAttached: 1 },
  'awaiting-approval.json': { status: 'awaiting_approval', attempt: 0, delivered: false, retriesAttached: 1 },
  'ssh-needs-review-resolved.json': { status: 'completed_result_not_delivered', attempt: 1, delivered: false, retriesAttached: 1 },
  'approval-granted-redispatched.json': { status: 'completed', attempt: 2, delivered: true, retriesAttached: 0 },
  'approval-rejected.json': { status: 'denied', attempt: 0, delivered: false, retriesAttached: 0 },
  'completed-then-reverted.json': { status: 'reverted', attempt: 1, delivered: true, retriesAttached: 0 },
  'undelivered-correlation-expired.json': { status: 'expired', attempt: 1, delivered: false, retriesAttached: 1 },
  'run-attempt-2-ledger-hit.json': { status: 'completed', attempt: 1, delivered: true, retriesAttached: 1 },
} as const satisfies Record<string, { status: string; attempt: number; delivered: boolean; retriesAttached: number }>;

// Every history tools/record-fixtures committed, not a hand-kept list: a new one must fold, and say into what.
const recorded = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .sort();

describe('evolve folds recorded histories', () => {
  it('knows the state every recorded history ends in', () => {
    expect(Object.keys(expected).sort()).toEqual(recorded);
  });

  it.each(recorded)('%s', (file) => {
    const { status, ...progress } = expected[file as keyof typeof expected] ?? { status: 'no expectation recorded for this history' };
    const raw = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as unknown[];
    const state = foldEvents(raw.map((event) => parseEvent(event)));
    expect(state.status).toBe(status);
    expect(state.status !== 'none' && state.progress).toMatchObject(progress);
  });
});
