export type { AppendResult, CommittedEvent, ExpectedVersion, NewEvent, StoredEvent } from './event';
export type { JsonObject, JsonValue } from './json';
export { AppendGuardRefusedError, DuplicateEventError, WrongExpectedVersionError, refusedForItsValues } from './errors';
export {
  EVENT_STORE,
  type AppendGuard,
  type AppendOptions,
  type EventStore,
  type ReadAllOptions,
  type StreamAppend,
  type StreamFrom,
} from './event-store.port';
export { PostgresEventStore, type OnCommitted } from './postgres-event-store';
export { inTransaction, type ClientPool, type Queryable } from './queryable';
export { eventStoreMigrations, sqlMigration, type SchemaStep } from './migrations';
export {
  MIGRATION_TABLE,
  MigrationSetupError,
  SERVICE_ROLE_PATTERN,
  grantServiceRole,
  openOrm,
  ormConfig,
  runMigrations,
  type MigrationOptions,
  type OrmSettings,
} from './orm';
export { GENESIS_HASH, chainHash, contentHash, hashedContentJson } from './hash-chain';
export * from './audit';
export {
  CHECKPOINT_START,
  CheckpointMovedError,
  type Checkpoint,
  loadCheckpoint,
  overwriteCheckpoint,
  saveCheckpoint,
  resetCheckpoint,
} from './subscription/checkpoint';
export { checkpointOf, readCommittedAfter } from './subscription/read-committed-after';
export {
  StoreSubscription,
  type BatchHandler,
  type StoreSubscriptionOptions,
  type SubscriptionMode,
} from './subscription/store-subscription';
export type { Projection } from './projections/projection';
export { ProjectionRunner, type ProjectionRunnerOptions } from './projections/projection-runner';
export { headCheckpoint } from './subscription/head-checkpoint';
export { StoreChangeFeed } from './subscription/store-change-feed';
export { type SharedNotices, sharedNoticesOf } from './subscription/shared-notices';
export {
  EventQuarantine,
  type EventQuarantineOptions,
  type QuarantineLog,
  type QuarantineSubject,
  configureQuarantineDefaults,
} from './quarantine/event-quarantine';
export {
  DEFAULT_QUARANTINE_AFTER_ATTEMPTS,
  MAX_QUARANTINE_AFTER_ATTEMPTS,
  type FailureVerdict,
  type QuarantineStatus,
  boundedErrorText,
  countsAgainstEvent,
} from './quarantine/quarantine-policy';
export {
  QUARANTINE_FILTERS,
  type QuarantineChange,
  type QuarantineEntry,
  type QuarantineFilter,
  listQuarantine,
  quarantineEntry,
  releaseQuarantined,
  requestRetry,
} from './quarantine/quarantine-entries';
export { reportOpenQuarantine } from './quarantine/quarantine-metrics';
export type { SubscriptionQuarantine } from './subscription/store-subscription';
export { ChannelListener } from './subscription/channel-listener';
export { Wakeup } from './subscription/wakeup';
export * from './commands';
export { DEFAULT_POOL_MAX, POOL_MAX_RANGE, type PoolSettings, connectionNameOf, createPool } from './pool';
export { MAX_PREPARED_TEXTS, PreparingClient, preparedNameOf } from './prepared-statements';
export { NextBatch } from './next-batch';
export { ResultStore, ResultStoreMigration, type StoredResult, referenceFor } from './results/result-store';
export { LAG_BUCKETS, LATENCY_BUCKETS, WAIT_BUCKETS, processCounter, processGauge, processHistogram } from './metrics/process-metrics';
