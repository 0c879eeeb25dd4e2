export { startTestTarget, startTestTarget as start, type TestTarget, type TestTargetOptions } from './test-target';
export { remoteTestTarget, type RemoteTestTarget } from './remote-target';
export { runTargetProcess } from './run-target-process';
export { BehaviorSpec } from './behavior';
export type { Effect, EffectFilter, Json } from './effect-ledger';
export { ROUTES, ROUTE_NAMES, type EffectRouteName, type RouteDef, type RouteName } from './routes';
export { TestTargetError, type TestTargetErrorCode } from './test-target-error';
