import { ExecutionStatus } from '@onceport/contracts';
import { nextStepSentence } from './next-step';

const ID = 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K';
const plain = { replay: false, targetStatus: null, reason: null };

describe('nextStepSentence: the sentence a model reads first', () => {
  it.each(ExecutionStatus.options)('gives a sentence for %s', (state) => {
    const sentence = nextStepSentence(state, ID, plain);
    expect(sentence.length).toBeGreaterThan(20);
    expect(sentence).toMatch(/^[A-Z].*\.$/s);
    expect(sentence).not.toMatch(/undefined|null|\[object/);
  });

  // The states a retry would attach to (DESIGN.md §5): calling again cannot help, so the sentence says so.
  it.each([
    'accepted',
    'awaiting_approval',
    'authorized',
    'dispatched',
    'dispatched_unknown',
    'completed_result_not_delivered',
    'completed',
    'needs_review',
  ] as const)('%s tells the model not to call again', (state) => {
    expect(nextStepSentence(state, ID, plain)).toMatch(/do not call again/i);
  });

  it('an unknown outcome says "do not call again", why, and how to ask for the state instead', () => {
    const sentence = nextStepSentence('dispatched_unknown', ID, { ...plain, reason: 'socket reset after the body was sent' });
    expect(sentence).toMatch(/outcome not yet known/);
    expect(sentence).toMatch(/do not call again/);
    expect(sentence).toContain('socket reset after the body was sent');
    expect(sentence).toContain(`onceport_execution_status tool (execution_id "${ID}")`);
    expect(sentence).toContain(`GET /v1/executions/${ID}`);
  });

  it('an unfinished execution points at the status tool with its id', () => {
    for (const state of ['accepted', 'authorized', 'dispatched', 'awaiting_approval', 'needs_review'] as const) {
      expect(nextStepSentence(state, ID, plain)).toContain(`execution_id "${ID}"`);
    }
  });

  it('a call completed by settlement (a probe found the effect) says so and why', () => {
    const sentence = nextStepSentence('completed_result_not_delivered', ID, {
      ...plain,
      targetStatus: 200,
      reason: 'probe 1 found the effect applied',
    });
    expect(sentence).toBe(
      'Completed, confirmed after the outcome was unknown (probe 1 found the effect applied). Do not call again for this intent.',
    );
    const replay = nextStepSentence('completed', ID, { replay: true, targetStatus: 200, reason: 'probe 1 found the effect applied' });
    expect(replay).toBe(
      'Completed earlier (target status 200; confirmed after the outcome was unknown: probe 1 found the effect applied); this is the stored result, nothing was sent again. Do not call again for this intent.',
    );
  });

  it('a completed call names the target status, and a replay says nothing was sent again', () => {
    expect(nextStepSentence('completed_result_not_delivered', ID, { ...plain, targetStatus: 201 })).toBe(
      'Completed: the target answered 201. Do not call again for this intent.',
    );
    const replay = nextStepSentence('completed', ID, { ...plain, replay: true, targetStatus: 201 });
    expect(replay).toMatch(/target status 201/);
    expect(replay).toMatch(/stored result, nothing was sent again/);
  });

  it('failed and denied carry their reason; denied warns that a retry gets the same denial', () => {
    expect(nextStepSentence('failed', ID, { ...plain, reason: 'the target answered 422' })).toMatch(
      /^Failed: the target answered 422\. .*new execution/,
    );
    const denied = nextStepSentence('denied', ID, { ...plain, reason: 'the vault is locked' });
    expect(denied).toMatch(/^Denied: the vault is locked\./);
    expect(denied).toMatch(/same denial/);
  });

  it('states no retry matches any more say that a new call starts a new execution', () => {
    for (const state of ['failed', 'expired', 'reverted'] as const) {
      expect(nextStepSentence(state, ID, plain)).toMatch(/a new call starts a new execution/);
    }
  });
});
