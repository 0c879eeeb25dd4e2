/** Structured log lines; never given a token, key or credential. */
export type Log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

/** JSON lines on stderr, in the same shape as the runtime's own lines. */
export function jsonLog(service: string): Log {
  return (level, message, fields = {}) => {
    process.stderr.write(`${JSON.stringify({ level, service, message, ...fields, time: new Date().toISOString() })}\n`);
  };
}
