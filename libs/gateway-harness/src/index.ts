// Test support only (tagged type:test-support): starts the gateway for the e2e suites, the CLI tests and the bench.
export { type AppProcess, type AppProcessOptions, startAppProcess } from './app-process';
export {
  CONSUMERS_FIRST,
  GATEWAY_SERVICES,
  type Gateway,
  type GatewayOptions,
  type GatewayService,
  type RestartOptions,
  startGateway,
} from './gateway';
export { type FixtureActor, type FixtureOAuth, type GatewayFixture, writeGatewayFixture } from './gateway-fixture';
export { LOCAL_APPS, type LocalApp, LocalTopology, type LocalTopologyOptions } from './local-topology';
export { type NpmStart, bannerValue, freePort, portOpen, spawnNpmStart, waitFor } from './npm-start-process';
export { type ExecutionOutcome, UNSETTLED_STATUSES, readExecutionOutcomes } from './execution-outcomes';
