// Guard against breaking old executions: the current evolve must still fold every recorded history
// (read through parseEvent, so upcasters run as they would in production) into the state it ended in.
import { readFileSync } from 'node:fs';
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
} as const;

describe('evolve folds recorded histories', () => {
  it.each(Object.entries(expected))('%s', (file, { status, ...progress }) => {
    const raw = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as unknown[];
    const state = foldEvents(raw.map((event) => parseEvent(event)));
    expect(state.status).toBe(status);
    expect(state.status !== 'none' && state.progress).toMatchObject(progress);
  });
});
