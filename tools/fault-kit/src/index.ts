/**
 * Onceport's fault-injection kit: a loopback TCP proxy that injects network faults, control over
 * processes (SIGKILL, SIGSTOP, restart), private nats-server and PostgreSQL instances to crash, and
 * named fault points to kill an app at an exact place. See tools/fault-kit/README.md.
 */
export { CleanupStack } from './cleanup-stack';
export { FaultKitError, type FaultKitErrorCode } from './errors';
export { FAULT_ACTION_ENV, FAULT_POINT_ENV, type FaultAction, faultPoint } from './fault-point';
export { atNamedPoint, type NamedPoint, type NamedPointHit } from './named-point';
export { assertLoopback, type HostPort, isLoopbackHost, parseHostPort } from './net/loopback';
export { freePort, isPortOpen, waitForPort } from './net/ports';
export {
  ControlledProcess,
  type ControlledProcessOptions,
  type ExitInfo,
  type Readiness,
  type StopOptions,
} from './process/controlled-process';
export { describeFault, type Direction, type Fault, type FaultKind } from './proxy/fault';
export { type FaultProxy, type FaultProxyOptions, type ProxyByteCounts, startFaultProxy } from './proxy/fault-proxy';
export type { ProxyConnectionInfo } from './proxy/proxy-connection';
export { type NatsMessageCounts, NatsServer, type NatsServerOptions } from './servers/nats-server';
export { PostgresCluster, type PostgresClusterOptions, type ShutdownMode } from './servers/postgres-cluster';
