import { eventSubject } from '@onceport/contracts';
import { subscribedEventOf } from './event-subject';

describe('subscribedEventOf', () => {
  it('reads back what eventSubject made', () => {
    for (const [type, version] of [
      ['ExecutionAccepted', 1],
      ['DispatchFailedBeforeSend', 3],
      ['OutcomeUnknown', 12],
    ] as const) {
      expect(subscribedEventOf(eventSubject(type, version))).toEqual({ type, schemaVersion: version });
    }
  });

  it('refuses a pattern that is no versioned execution event subject, so the start fails', () => {
    const malformed = ['ExecutionAccepted', 'onceport.execution.execution-accepted.*', 'onceport.execution.execution-accepted.v0'];
    malformed.push('orders.execution-accepted.v1');
    for (const subject of [...malformed, 'onceport.execution.Execution.v1']) {
      expect(() => subscribedEventOf(subject)).toThrow(/not an execution event subject/);
    }
  });
});
