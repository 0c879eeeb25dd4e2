import { type Investigation, type TracedEvent, describeEvent, occurredAt } from '@onceport/execution-trace';

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
