import type { Investigation } from './investigation';
import { describeEvent, occurredAt } from './describe-event';
import { shownData } from './shown-data';
import type { LaterExecution, TracedEvent } from './traced-event';

export function renderTrace(events: readonly TracedEvent[], investigation: Investigation): string {
  const lines = [`execution ${investigation.executionId} — now ${investigation.state}`, '', 'Timeline (event order):'];
  for (const t of events) {
    const what = t.event ? describeEvent(t.event) : `(does not parse: ${t.parseError})`;
    lines.push(`  ${String(t.streamVersion).padStart(3)}  ${occurredAt(t.event, t.recordedAt)}  ${t.type.padEnd(24)} ${what}`);
  }
  const a = investigation;
  lines.push(
    '',
    'Investigation:',
    `  1. One agent process or two?                      ${a.agentProcesses.sentence}`,
    `  2. Was the first call authorized and dispatched?  ${a.firstCall.sentence}`,
    `  3. Did the target answer?                          ${a.targetAnswered.sentence}`,
    `  4. Did delivery fail after the target completed?   ${a.deliveryFailedAfterCompletion.sentence}`,
    `  5. Later calls: attached, keyed, new attempt?      ${a.laterCalls.sentence}`,
  );
  return lines.join('\n');
}

/** The same for machines: the timeline, and each answer as a keyword plus its sentence. */
export function traceJson(events: readonly TracedEvent[], later: readonly LaterExecution[], investigation: Investigation): unknown {
  const a = investigation;
  return {
    execution_id: a.executionId,
    state: a.state,
    timeline: events.map((t) => ({
      stream_version: t.streamVersion,
      global_position: String(t.globalPosition),
      at: occurredAt(t.event, t.recordedAt),
      type: t.type,
      summary: t.event ? describeEvent(t.event) : null,
      parse_error: t.parseError,
      data: t.event ? shownData(t.event) : null,
    })),
    later_executions: later.map((l) => ({
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
