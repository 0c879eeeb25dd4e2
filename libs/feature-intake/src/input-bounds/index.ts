export * from './input-bounds';
export { type BoundViolation, type Checked, childPath, describeViolations, safeText } from './bound-violation';
export { checkJsonValue, stringProblem } from './check-json-value';
export { type BoundedToolCall, type ToolCallInput, type ToolCallPaths, checkToolCall } from './check-tool-call';
export { boundedTraceContext, checkIdempotencyKey, checkJsonRpcId, checkProcessId, requestIdOrFresh } from './check-identifiers';
export { type DeliberateRepeat, type NamedRun, MAX_REPEAT_REASON_CHARS } from './check-run-fields';
