import { type z } from 'zod';

/** A superseded version of an event's data, and how to lift it to the next version. */
export interface PastVersion {
  readonly schemaVersion: number;
  readonly data: z.ZodType;
  /** Called only with data {@link PastVersion.data} has just accepted; returns data of `schemaVersion + 1`. */
  readonly upcast: (data: unknown) => unknown;
}

/**
 * Declares a past version. Keep the old schema frozen (copy it, don't import the current one):
 * the point is to read what was written then.
 *
 * @example pastVersion(1, ExecutionAcceptedDataV1, (v1) => ({ ...v1, agentProcess: null }))
 */
export function pastVersion<From>(schemaVersion: number, data: z.ZodType<From>, upcast: (data: From) => unknown): PastVersion {
  return {
    schemaVersion,
    data,
    // The registry parses with `data` before calling, so this re-parse is the narrowing, not a second check.
    upcast: (raw) => upcast(data.parse(raw)),
  };
}
