export { ReconcilerModule, type ReconcilerModuleOptions } from './reconciler.module';
export { type ReconcilerEnv, reconcilerEnvShape } from './reconciler.config';
export { type PlanInput, type SettlementLimits, type SettlementPlan, planSettlement } from './settle-execution/plan-settlement';
export { SettleExecutionHandler, type SettleDependencies } from './settle-execution/settle-execution.handler';
export { Sweeper, type SweeperPorts, type SweeperSettings } from './sweep/sweeper';
export { RECONCILER_DURABLE } from './settle-execution/outcome-unknown.consumer';
export { reconcilerMigrations } from './reconciler-migrations';
export { STOOD_DOWN_MESSAGE, type SettleLog, type SettleOutcome } from './settle-execution/settle-execution.handler';
