import type { SecretScrubber } from '../secrets/secret-scrubber';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured line per call; fields are plain values (ids, counts, reasons), never secrets. */
export type DispatcherLog = (level: LogLevel, message: string, fields?: Record<string, string | number | boolean | null>) => void;

const RANK: Readonly<Record<string, number>> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, fatal: 5, silent: 6 };

/**
 * JSON lines on stderr (stdout is where the process reports that it listens), filtered by
 * `LOG_LEVEL`. Every text goes through the scrubber before it is encoded (JSON escaping would hide
 * a credential holding quotes or backslashes from a search of the finished line).
 */
export function jsonLinesLog(service: string, minimumLevel: string, scrubber: SecretScrubber, write: (line: string) => void = (line) => process.stderr.write(line)): DispatcherLog {
  const threshold = RANK[minimumLevel] ?? RANK['info'] ?? 2;
  return (level, message, fields = {}) => {
    if ((RANK[level] ?? 0) < threshold) return;
    const scrubbed: Record<string, string | number | boolean | null> = {};
    for (const [key, value] of Object.entries(fields)) scrubbed[key] = typeof value === 'string' ? scrubber.scrub(value) : value;
    write(`${JSON.stringify({ level, service, message: scrubber.scrub(message), ...scrubbed, time: new Date().toISOString() })}\n`);
  };
}
