// An MCP server written for tests: it counts effects in a state directory shared across processes
// and misbehaves on demand (cuts the answer after applying, dies mid-call, answers late, errs, tasks).
export { startHttpUpstream, type HttpUpstream, type HttpUpstreamOptions } from './http-upstream';
export { stdioUpstreamCommand, type StdioUpstreamCommand, STATE_DIR_ENV, TASK_DELAY_ENV } from './stdio-upstream';
export { readEffects, type UpstreamEffect, type EffectFilter } from './state/effect-ledger';
export { setBehavior, clearBehaviors, UpstreamBehavior, type BehaviorKind, EFFECT_TOOLS } from './state/behaviors';
export { setCatalog, UpstreamCatalog } from './state/catalog';
export { UPSTREAM_TOOLS, type UpstreamToolDefinition } from './upstream-tools';
export { EXECUTION_ID_META_KEY, IDEMPOTENCY_META_KEY, TASKS_EXTENSION } from './upstream-server';
export { DEFAULT_TASK_DELAY_MS, TASK_POLL_INTERVAL_MS, type TaskView, endTasks } from './state/tasks';
