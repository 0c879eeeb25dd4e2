// Sample envelopes for this folder's tests.
import { type EventMetadata } from '../event-metadata';

export const metadata: EventMetadata = {
  eventId: '0195a3c2-7f10-7c3e-9a41-5b2d8e6f1a01',
  correlationId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K',
  causationId: 'mcp:mcp-sess-a1:7',
  occurredAt: '2026-03-02T10:00:00.000Z',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};

export const outcomeUnknown = {
  type: 'OutcomeUnknown',
  schemaVersion: 1,
  data: {
    executionId: 'exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K',
    attempt: 1,
    reason: 'socket reset after the body was sent',
    detectedAt: '2026-03-02T10:00:30.000Z',
  },
  metadata,
};
