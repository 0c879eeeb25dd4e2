import { EXECUTION_EVENT_TYPES, executionEventDefinitions } from './execution-event';
import { EXECUTION_STREAM_SUBJECTS, eventSubject, eventSubjectWildcard, kebabEventName } from './subjects';

describe('subjects', () => {
  it('names subjects onceport.execution.<kebab-event>.v<version>', () => {
    expect(kebabEventName('DispatchFailedBeforeSend')).toBe('dispatch-failed-before-send');
    expect(eventSubject('ExecutionAccepted', 1)).toBe('onceport.execution.execution-accepted.v1');
    expect(eventSubjectWildcard('ExecutionAccepted')).toBe('onceport.execution.execution-accepted.*');
    expect(EXECUTION_STREAM_SUBJECTS).toBe('onceport.execution.>');
  });

  it('gives all 17 lifecycle events a v1 subject inside the stream subject space', () => {
    expect(EXECUTION_EVENT_TYPES).toHaveLength(17);
    for (const type of EXECUTION_EVENT_TYPES) {
      const definition = executionEventDefinitions[type];
      expect(definition.type).toBe(type);
      expect(definition.schemaVersion).toBe(1);
      expect(definition.subject).toMatch(/^onceport\.execution\.[a-z]+(-[a-z]+)*\.v1$/);
      expect(definition.subjectWildcard).toBe(definition.subject.replace(/v1$/, '*'));
    }
    expect(new Set(EXECUTION_EVENT_TYPES.map((type) => executionEventDefinitions[type].subject)).size).toBe(17);
  });
});
