/**
 * One execution investigated, as `onceport trace` and the console's execution page show it: its
 * events loaded from the event store (or an audit export), each said in a line, its data shown with
 * arguments withheld, and the five questions answered in a word and a sentence.
 */
export { type LoadTraceOptions, type LoadedTrace, MAX_LATER_EXECUTIONS, loadTraceFromDatabase, loadTraceFromFile } from './load-trace';
export { type LaterExecution, type TracedEvent, toTracedEvent, traceIdsOf } from './traced-event';
export { describeEvent, occurredAt } from './describe-event';
export { type Investigation, investigate } from './investigation';
export { shownData } from './shown-data';
export { type TraceView, traceView } from './trace-view';
