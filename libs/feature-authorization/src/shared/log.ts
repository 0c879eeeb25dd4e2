import { type ServiceLog, serviceLog } from '@onceport/service-kit';

/** Structured log lines; never given a token, key or credential. */
export type Log = ServiceLog;

/** The service kit's pino lines, as `service`. */
export function jsonLog(service: string): Log {
  return serviceLog(service);
}
