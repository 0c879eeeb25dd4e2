export { ExecutionMatchesMigration } from './execution-matches/execution-matches.migration';
export { ExecutionMatchesIntentDigestMigration } from './execution-matches/execution-matches-intent-digest.migration';
export { executionMatchesProjection } from './execution-matches/execution-matches.projection';
export { type MatchLookup, findMatchCandidates } from './execution-matches/find-match-candidates';
export { ReconcileChecksMigration } from './reconcile-checks/reconcile-checks.migration';
export { ExecutionMatchEntity, type ExecutionMatchRow } from './execution-matches/execution-match.entity';
export { ReconcileCheckEntity, type ReconcileCheckRow } from './reconcile-checks/reconcile-check.entity';
export { readModelEntities } from './read-model.entities';
