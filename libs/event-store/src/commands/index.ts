export {
  CommandAttempt,
  CommandHandler,
  type CommandFor,
  type CommandHandlerOptions,
  type HandleOptions,
  type HandledCommand,
} from './command-handler';
export { CONFLICT_ATTEMPTS, retryOnConflict } from './conflict-retry';
export { type EventCause, eventMetadata } from './event-cause';
export { loadStream } from './load-stream';
export { type UnfoldableEvent, unfoldableEvent } from './unfoldable-event';
export { type LoadedOf, type LoadedStream, type Stream, type StreamKind, emptyStream } from './stream-kind';
export { type ExecutionStream, type LoadedExecution, executionStream } from './streams/execution-stream';
export { type VaultStream, vaultStream } from './streams/vault-stream';
export { type SessionStream, sessionStream } from './streams/session-stream';
export { type IntentStream, intentStream, intentStreamId, intentStreamWithId } from './streams/intent-stream';
export { type IdempotencyKeyStream, idempotencyKeyStream } from './streams/idempotency-key-stream';
export { type RunStream, runStream } from './streams/run-stream';
export { type CampaignStream, campaignStream } from './streams/campaign-stream';
