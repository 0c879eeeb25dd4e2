// The demo target is a production part (npm start serves it); tests drive the same server, by the
// name it has for them, plus what only tests need: a remote driver and a process of its own.
export {
  startDemoTarget as startTestTarget,
  startDemoTarget as start,
  type DemoTarget as TestTarget,
  type DemoTargetOptions as TestTargetOptions,
  BehaviorSpec,
  type Effect,
  type EffectFilter,
  type Json,
  ROUTES,
  ROUTE_NAMES,
  type EffectRouteName,
  type RouteDef,
  type RouteName,
  TestTargetError,
  type TestTargetErrorCode,
} from '@onceport/demo-target';
export { remoteTestTarget, type RemoteTestTarget } from './remote-target';
export { runTargetProcess } from './run-target-process';
