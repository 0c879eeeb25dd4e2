import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while handling one execution carries, without each call passing it. */
export interface LogContext {
  readonly executionId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `work` with these fields on every log line it writes (also after an await), on top of the enclosing context. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, work);
}

/** Where a command or consumer handles one execution: its id goes on every line written meanwhile. */
export function withExecutionId<T>(executionId: string, work: () => T): T {
  return withLogContext({ executionId }, work);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}
