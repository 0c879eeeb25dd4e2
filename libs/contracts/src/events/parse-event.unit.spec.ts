import { createEvent } from './create-event';
import { EventParseError } from './event-parse-error';
import { parseEvent, safeParseEvent } from './execution-event-registry';
import { ExecutionAuthorizedEvent } from './execution-authorized.event';
import { OutcomeUnknownEvent } from './outcome-unknown.event';
import { metadata, outcomeUnknown } from './testing/samples';

function parseError(raw: unknown): EventParseError {
  const result = safeParseEvent(raw);
  if (result.success) throw new Error('expected a parse error');
  return result.error;
}

describe('parseEvent', () => {
  it('returns a typed envelope at the current version', () => {
    const event = parseEvent(JSON.parse(JSON.stringify(outcomeUnknown)));
    expect(event).toEqual(outcomeUnknown);
    if (event.type !== 'OutcomeUnknown') throw new Error('narrowing failed');
    expect(event.data.attempt).toBe(1);
  });

  it('names the event type, version and zod path of bad data', () => {
    const error = parseError({ ...outcomeUnknown, data: { ...outcomeUnknown.data, attempt: 0 } });
    expect(error).toMatchObject({ code: 'invalid_event_data', eventType: 'OutcomeUnknown', schemaVersion: 1 });
    expect(error.issues[0]?.path).toBe('data.attempt');
    expect(error.message).toMatch(/^OutcomeUnknown v1: .*data\.attempt/);
    expect(() => parseEvent({ ...outcomeUnknown, data: {} })).toThrow(EventParseError);
  });

  it('reads an upstream task id when there is one, bounded: printable ASCII, no spaces, 128 at most', () => {
    const withTask = (upstreamTaskId: string) => ({ ...outcomeUnknown, data: { ...outcomeUnknown.data, upstreamTaskId } });
    const event = parseEvent(withTask('tsk_0123abcd'));
    expect(event.type === 'OutcomeUnknown' && event.data.upstreamTaskId).toBe('tsk_0123abcd');
    for (const bad of ['', 'a b', 'tsk\n1', 'x'.repeat(129), 'tâche'])
      expect(parseError(withTask(bad)).issues[0]?.path).toBe('data.upstreamTaskId');
  });

  it('refuses envelopes without correlation or causation ids', () => {
    const { causationId: _dropped, ...withoutCausation } = metadata;
    const error = parseError({ ...outcomeUnknown, metadata: withoutCausation });
    expect(error).toMatchObject({ code: 'invalid_envelope', eventType: 'OutcomeUnknown', schemaVersion: 1 });
    expect(error.issues.map((issue) => issue.path)).toEqual(['metadata.causationId']);
  });

  it('refuses non-envelopes, unknown types and versions from a newer producer', () => {
    expect(parseError('nope')).toMatchObject({ code: 'invalid_envelope', eventType: null });
    expect(parseError({ ...outcomeUnknown, type: 'OutcomeGuessed' })).toMatchObject({
      code: 'unknown_event_type',
      eventType: 'OutcomeGuessed',
    });
    expect(parseError({ ...outcomeUnknown, schemaVersion: 2 })).toMatchObject({ code: 'unknown_schema_version', schemaVersion: 2 });
    expect(parseError({ ...outcomeUnknown, schemaVersion: 0 })).toMatchObject({ code: 'invalid_envelope' });
  });

  it('checks cross-field rules of the data', () => {
    const authorized = {
      type: 'ExecutionAuthorized',
      schemaVersion: 1,
      metadata,
      data: {
        executionId: outcomeUnknown.data.executionId,
        basis: 'approval',
        policyVersion: 'pol-7',
        approvalId: null,
        authorizedAt: metadata.occurredAt,
      },
    };
    expect(parseError(authorized).issues.map((issue) => issue.path)).toEqual(['data.approvalId']);
  });
});

describe('createEvent', () => {
  it('stamps type and current version', () => {
    expect(createEvent(OutcomeUnknownEvent, outcomeUnknown.data, metadata)).toEqual(outcomeUnknown);
  });

  it('refuses to publish data consumers would refuse', () => {
    const data = {
      executionId: outcomeUnknown.data.executionId,
      basis: 'policy' as const,
      policyVersion: 'pol-7',
      approvalId: 'apr_1',
      authorizedAt: metadata.occurredAt,
    };
    expect(() => createEvent(ExecutionAuthorizedEvent, data, metadata)).toThrow(/ExecutionAuthorized v1: .*data\.approvalId/);
  });
});
