import { createLogger, serviceLog } from '@onceport/service-kit';
import type { SecretScrubber } from '../secrets/secret-scrubber';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured line per call; fields are plain values (ids, counts, reasons), never secrets. */
export type DispatcherLog = (level: LogLevel, message: string, fields?: Record<string, string | number | boolean | null>) => void;

/**
 * The service kit's pino lines on stderr (stdout is where the process reports that it listens),
 * filtered by `LOG_LEVEL`. Every text goes through the scrubber before it is encoded (JSON escaping
 * would hide a credential holding quotes or backslashes from a search of the finished line), and
 * each finished line once more.
 */
export function jsonLinesLog(
  service: string,
  minimumLevel: string,
  scrubber: SecretScrubber,
  write?: (line: string) => void,
): DispatcherLog {
  const logger = createLogger({ level: minimumLevel, scrubber, ...(write ? { destination: { write } } : {}) });
  return serviceLog(service, { scrubber, logger });
}
