import { isSpanContextValid, trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, pino } from 'pino';
import { currentLogContext } from './log-context';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** The call shape used across the code (`runtime.log(level, message, fields)`): one JSON line per call. */
export type ServiceLog = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/** Text a log line must not carry (the dispatcher's credential values). */
export interface TextScrubber {
  scrub(text: string): string;
}

export const REDACTED = '[redacted]';

/** Fields that hold a secret wherever they appear in a line: request headers, API keys, credential values. */
export const REDACT_PATHS: readonly string[] = [
  'authorization',
  'cookie',
  'apiKey',
  'api_key',
  'password',
  'credential',
  'secret',
  '*.authorization',
  '*.cookie',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.credential',
  '*.secret',
  'headers["x-api-key"]',
  'headers["set-cookie"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

const LEVELS = new Set<string>(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

export interface LoggingOptions {
  /** `LOG_LEVEL`; an unknown value reads as `info`. */
  readonly level?: string | undefined;
  /** Default: stderr, written synchronously (stdout is where a service says that it listens). */
  readonly destination?: DestinationStream;
  /** Applied to every finished line: a secret it knows is masked wherever it sits, even inside an error's stack. */
  readonly scrubber?: TextScrubber;
}

/**
 * The pino logger of a process: JSON lines with `level` as a word, `message`, an ISO `time`, and —
 * when known — the active span's `traceId`/`spanId` and the `executionId` being handled.
 */
export function createLogger(options: LoggingOptions = {}): Logger {
  const { scrubber } = options;
  return pino(
    {
      level: options.level && LEVELS.has(options.level) ? options.level : 'info',
      messageKey: 'message',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: lineContext,
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      ...(scrubber ? { hooks: { streamWrite: (line: string) => scrubber.scrub(line) } } : {}),
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

function lineContext(): Record<string, string> {
  const fields: Record<string, string> = {};
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    fields['traceId'] = span.traceId;
    fields['spanId'] = span.spanId;
  }
  const executionId = currentLogContext()?.executionId;
  if (executionId) fields['executionId'] = executionId;
  return fields;
}

let processLogger: Logger | null = null;
const byService = new Map<string, Logger>();

/** Sets up the process's logger once its `LOG_LEVEL` is known (a service's start does it before anything logs). */
export function configureLogging(options: LoggingOptions): Logger {
  processLogger = createLogger(options);
  byService.clear();
  return processLogger;
}

/** The process's logger; before `configureLogging`, one on `LOG_LEVEL` as the environment gives it. */
export function processLog(): Logger {
  processLogger ??= createLogger({ level: process.env['LOG_LEVEL'] });
  return processLogger;
}

/** The pino logger one service writes with: every line names the `service`. */
export function serviceLogger(service: string): Logger {
  let logger = byService.get(service);
  if (!logger) {
    logger = processLog().child({ service });
    byService.set(service, logger);
  }
  return logger;
}

export interface ServiceLogOptions {
  /** Masks message and string fields before encoding (JSON escaping would hide a credential holding quotes from a search of the line). */
  readonly scrubber?: TextScrubber;
  /** Another logger to write with (a test's, with its own destination); default the process's. */
  readonly logger?: Logger;
}

/** A {@link ServiceLog} backed by pino; it looks the logger up per call, so a later `configureLogging` applies. */
export function serviceLog(service: string, options: ServiceLogOptions = {}): ServiceLog {
  const { scrubber } = options;
  const own = options.logger?.child({ service });
  return (level, message, fields = {}) => {
    const logger = own ?? serviceLogger(service);
    if (!logger.isLevelEnabled(level)) return;
    if (scrubber) logger[level](scrubbed(fields, scrubber) as object, scrubber.scrub(message));
    else logger[level](fields, message);
  };
}

function scrubbed(value: unknown, scrubber: TextScrubber): unknown {
  if (typeof value === 'string') return scrubber.scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, scrubber));
  if (value instanceof Error) return scrubber.scrub(String(value));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubbed(item, scrubber)]));
  return value;
}
