import { describeEvent, occurredAt } from './describe-event';
import type { Investigation } from './investigation';
import type { LoadedTrace } from './load-trace';
import { shownData } from './shown-data';
import { traceIdsOf } from './traced-event';

/**
 * A trace for machines (`onceport trace --json` and intake's admin trace route): the timeline with
 * each event's shown data (arguments withheld), each answer as a keyword plus its sentence, later
 * executions of the same intent, and the trace ids the events carry.
 *
 * @example traceView(loaded, investigate(id, loaded.events, loaded.laterExecutions))
 */
export function traceView(trace: LoadedTrace, investigation: Investigation) {
  const a = investigation;
  return {
    execution_id: a.executionId,
    state: a.state,
    event_count: trace.eventCount,
    timeline_capped: trace.events.length < trace.eventCount,
    trace_ids: traceIdsOf(trace.events),
    timeline: trace.events.map((t) => ({
      stream_version: t.streamVersion,
      global_position: String(t.globalPosition),
      at: occurredAt(t.event, t.recordedAt),
      type: t.type,
      summary: t.event ? describeEvent(t.event) : null,
      parse_error: t.parseError,
      trace_id: t.traceId,
      data: t.event ? shownData(t.event) : null,
    })),
    later_executions: trace.laterExecutions.map((l) => ({
      execution_id: l.executionId,
      agent_process: l.agentProcess,
      client_idempotency_key: l.clientIdempotencyKey,
      accepted_at: l.acceptedAt,
    })),
    answers: {
      agent_processes: { answer: a.agentProcesses.answer, processes: a.agentProcesses.processes, sentence: a.agentProcesses.sentence },
      first_call_authorized_and_dispatched: {
        authorized: a.firstCall.authorized,
        dispatched: a.firstCall.dispatched,
        sentence: a.firstCall.sentence,
      },
      target_answered: {
        answer: a.targetAnswered.answer,
        target_status: a.targetAnswered.targetStatus,
        sentence: a.targetAnswered.sentence,
      },
      delivery_failed_after_completion: {
        answer: a.deliveryFailedAfterCompletion.answer,
        sentence: a.deliveryFailedAfterCompletion.sentence,
      },
      later_calls: {
        attached: a.laterCalls.attached,
        idempotency_keys: a.laterCalls.idempotencyKeys,
        redispatch_attempts: a.laterCalls.redispatchAttempts,
        new_executions: a.laterCalls.newExecutions,
        sentence: a.laterCalls.sentence,
      },
    },
  };
}

export type TraceView = ReturnType<typeof traceView>;
