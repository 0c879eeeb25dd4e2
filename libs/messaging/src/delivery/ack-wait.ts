import { z } from 'zod';

const positiveMs = z.coerce.number().int().min(100).max(3_600_000);

/**
 * How long JetStream waits for an ack before redelivering. `ONCEPORT_ACK_WAIT_MS`: for consumers
 * that declare no ack wait of their own. `ONCEPORT_ACK_WAIT_MAX_MS`: a ceiling over every consumer,
 * own ack waits included (fault tests use it to see a redelivery in seconds rather than minutes).
 */
export const ackWaitEnvShape = {
  ONCEPORT_ACK_WAIT_MS: positiveMs.optional(),
  ONCEPORT_ACK_WAIT_MAX_MS: positiveMs.optional(),
};

export interface AckWaitSettings {
  readonly defaultMs?: number;
  readonly maxMs?: number;
}

/** The ack wait settings of a validated environment (`ackWaitEnvShape`). */
export function ackWaitOf(env: {
  readonly ONCEPORT_ACK_WAIT_MS?: number | undefined;
  readonly ONCEPORT_ACK_WAIT_MAX_MS?: number | undefined;
}): AckWaitSettings {
  return {
    ...(env.ONCEPORT_ACK_WAIT_MS ? { defaultMs: env.ONCEPORT_ACK_WAIT_MS } : {}),
    ...(env.ONCEPORT_ACK_WAIT_MAX_MS ? { maxMs: env.ONCEPORT_ACK_WAIT_MAX_MS } : {}),
  };
}

/** The ack wait one consumer gets: its own, else the default; never above the ceiling. Undefined: the library's default. */
export function effectiveAckWaitMs(ownMs: number | undefined, settings: AckWaitSettings): number | undefined {
  const chosen = ownMs ?? settings.defaultMs;
  if (settings.maxMs === undefined) return chosen;
  return Math.min(chosen ?? settings.maxMs, settings.maxMs);
}
