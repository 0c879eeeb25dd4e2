import { EXECUTION_EVENT_TYPES, executionEventDefinitions } from './execution-event';
import { EXECUTION_STREAM_SUBJECTS, eventSubject, eventSubjectWildcard, kebabEventName } from './subjects';

describe('subjects', () => {
  it('names subjects onceport.execution.<kebab-event>.v<version>', () => {
    expect(kebabEventName('DispatchFailedBeforeSend')).toBe('dispatch-failed-before-send');
    expect(eventSubject('ExecutionAccepted', 1)).toBe('onceport.execution.execution-accepted.v1');
    expect(eventSubjectWildcard('ExecutionAccepted')).toBe('onceport.execution.execution-accepted.*');
    expect(EXECUTION_STREAM_SUBJECTS).toBe('onceport.execution.>');
  });

  it('gives all 17 lifecycle events a versioned subject inside the stream subject space', () => {
    expect(EXECUTION_EVENT_TYPES).toHaveLength(17);
    // Events that gained run fields are at v2; every other one is still at v1.
    const atV2 = new Set(['ExecutionAccepted', 'RetryAttached']);
    for (const type of EXECUTION_EVENT_TYPES) {
      const definition = executionEventDefinitions[type];
      const version = atV2.has(type) ? 2 : 1;
      expect(definition.type).toBe(type);
      expect(definition.schemaVersion).toBe(version);
      expect(definition.subject).toMatch(new RegExp(`^onceport\\.execution\\.[a-z]+(-[a-z]+)*\\.v${version}$`));
      expect(definition.subjectWildcard).toBe(definition.subject.replace(/v\d+$/, '*'));
    }
    expect(new Set(EXECUTION_EVENT_TYPES.map((type) => executionEventDefinitions[type].subject)).size).toBe(17);
  });
});
