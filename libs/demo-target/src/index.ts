export { startDemoTarget, type DemoTarget, type DemoTargetOptions } from './demo-target';
export { BehaviorSpec } from './behavior';
export type { Effect, EffectFilter, Json } from './effect-ledger';
export { ROUTES, ROUTE_NAMES, type EffectRouteName, type RouteDef, type RouteName } from './routes';
export { TestTargetError, type TestTargetErrorCode } from './test-target-error';
