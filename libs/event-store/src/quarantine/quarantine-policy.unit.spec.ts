import { MAX_ERROR_TEXT, boundedErrorText, countsAgainstEvent, statusAfterFailure, verdictOf } from './quarantine-policy';

describe('quarantine policy', () => {
  it('quarantines on the attempt that reaches the limit, not before', () => {
    expect(statusAfterFailure(null, 1, 3)).toBe('failing');
    expect(statusAfterFailure('failing', 2, 3)).toBe('failing');
    expect(statusAfterFailure('failing', 3, 3)).toBe('quarantined');
    expect(statusAfterFailure(null, 1, 1)).toBe('quarantined');
  });

  it('leaves an entry out of the ordered flow once it is quarantined, released or resolved', () => {
    for (const status of ['quarantined', 'released', 'resolved', 'retry_requested', 'retrying'] as const) {
      expect(statusAfterFailure(status, 1, 5)).toBe(status);
      expect(verdictOf(status)).toBe('skip');
    }
    expect(verdictOf('failing')).toBe('retry');
  });

  it('does not count an outage or a lost race against the event', () => {
    expect(countsAgainstEvent(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(
      false,
    );
    expect(countsAgainstEvent(Object.assign(new Error('could not serialize access'), { code: '40001' }))).toBe(false);
    expect(countsAgainstEvent(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(false);
    expect(countsAgainstEvent(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(countsAgainstEvent(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(countsAgainstEvent(Object.assign(new Error('moved'), { name: 'WrongExpectedVersionError' }))).toBe(false);
    // A newer producer's event waits for this reader's upgrade; a malformed one is the event's fault.
    expect(
      countsAgainstEvent(Object.assign(new Error('ExecutionAccepted v9'), { name: 'EventParseError', code: 'unknown_schema_version' })),
    ).toBe(false);
    expect(
      countsAgainstEvent(
        Object.assign(new Error('ExecutionAccepted v1: data.actor'), { name: 'EventParseError', code: 'invalid_event_data' }),
      ),
    ).toBe(true);
  });

  it('counts what the event itself causes', () => {
    expect(
      countsAgainstEvent(Object.assign(new Error('index row size 3016 exceeds btree version 4 maximum 2704'), { code: '54000' })),
    ).toBe(true);
    expect(countsAgainstEvent(new TypeError("Cannot read properties of undefined (reading 'actor')"))).toBe(true);
    expect(countsAgainstEvent('a thrown string')).toBe(true);
  });

  it('keeps one bounded line of the error: control characters and lone surrogates replaced', () => {
    expect(boundedErrorText(new Error('line one\nline\u0000two'))).toBe('Error: line one line two');
    expect(boundedErrorText(new Error('half \ud800 pair, whole 😀'))).toBe('Error: half \ufffd pair, whole 😀');
    const long = boundedErrorText(new Error('x'.repeat(10_000)));
    expect(long).toHaveLength(MAX_ERROR_TEXT);
    expect(long.endsWith('…')).toBe(true);
  });
});
