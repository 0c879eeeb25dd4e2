export { type AppProcess, startAppProcess } from './testing/app-process';
export { type FixtureActor, type GatewayFixture, writeGatewayFixture } from './testing/gateway-fixture';
export { type GatewayProcesses, startGatewayProcesses } from './testing/gateway-processes';
export { LOCAL_APPS, type LocalApp, LocalTopology, type LocalTopologyOptions } from './testing/local-topology';
export { testArgumentSealer, testEncryptionKeys } from './testing/test-encryption-keys';
export { type NpmStart, bannerValue, freePort, portOpen, spawnNpmStart, waitFor } from './testing/npm-start-process';
