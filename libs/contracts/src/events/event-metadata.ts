import { z } from 'zod';
import { IsoTimestamp } from '../primitives';

/** W3C trace context `traceparent` (version-traceid-parentid-flags). */
const Traceparent = z.string().regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, 'expected a W3C traceparent');

/**
 * What every message carries besides its data.
 *
 * - `correlationId` ties together everything one execution caused (services use the execution id),
 *   so a log search or a trace finds the whole lifecycle.
 * - `causationId` is the id of the message that caused this one: the event id of the event a service
 *   reacted to, or the inbound request id for events an agent request caused.
 * - Trace context travels here as well as in NATS headers: events replayed from the store long after
 *   the fact still join the execution's trace.
 */
export const EventMetadata = z.object({
  eventId: z.uuid(),
  correlationId: z.string().min(1),
  causationId: z.string().min(1),
  occurredAt: IsoTimestamp,
  traceparent: Traceparent.optional(),
  tracestate: z.string().max(512).optional(),
  /** Who caused the event: an agent identity, a human approver, or a service (`svc:dispatcher`). */
  actor: z.string().min(1).optional(),
});
export type EventMetadata = z.infer<typeof EventMetadata>;
