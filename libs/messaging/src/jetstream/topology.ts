import { AckPolicy, DeliverPolicy, type JetStreamManager, JetStreamApiError, RetentionPolicy, StorageType } from '@nats-io/jetstream';

const NANOS_PER_MS = 1_000_000;

export interface StreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
  /** Covers relay republishing after a NATS restart; PostgreSQL, not this window, is what prevents loss. */
  readonly duplicateWindowMs?: number;
  readonly maxAgeMs?: number;
  /** 3 in production (R3); 1 on a single local server. */
  readonly replicas?: number;
}

/** Creates the stream, or brings an existing one to this configuration. Safe on every start. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const config = {
    name: spec.name,
    subjects: [...spec.subjects],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: spec.replicas ?? 1,
    duplicate_window: (spec.duplicateWindowMs ?? 10 * 60_000) * NANOS_PER_MS,
    max_age: (spec.maxAgeMs ?? 7 * 24 * 3_600_000) * NANOS_PER_MS,
  };
  try {
    await jsm.streams.info(spec.name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.streams.add(config);
    return;
  }
  await jsm.streams.update(spec.name, config);
}

export interface DurableConsumerSpec {
  readonly durable: string;
  readonly filterSubject: string;
  readonly ackWaitMs?: number;
  readonly maxDeliver?: number;
  readonly maxAckPending?: number;
}

/**
 * Creates the durable pull consumer or updates its mutable settings. Every replica of a service
 * uses the same durable name and so shares the work. Server 2.9 takes one filter subject per
 * consumer; a service that needs several event types gets one consumer per type.
 */
export async function ensureDurableConsumer(
  jsm: JetStreamManager,
  stream: string,
  spec: DurableConsumerSpec,
  startSequence?: number,
): Promise<void> {
  const mutable = {
    ack_wait: (spec.ackWaitMs ?? 30_000) * NANOS_PER_MS,
    max_deliver: spec.maxDeliver ?? -1,
    max_ack_pending: spec.maxAckPending ?? 1000,
  };
  try {
    const existing = await jsm.consumers.info(stream, spec.durable);
    // The filter can't be changed in place on server 2.9; silently keeping the old one would feed
    // this service events it does not handle, or none of those it does.
    if ((existing.config.filter_subject ?? '') !== spec.filterSubject)
      throw new ConsumerFilterConflictError(stream, spec.durable, existing.config.filter_subject ?? '', spec.filterSubject);
    await jsm.consumers.update(stream, spec.durable, mutable);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(stream, {
      durable_name: spec.durable,
      filter_subject: spec.filterSubject,
      ack_policy: AckPolicy.Explicit,
      ...(startSequence
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSequence }
        : { deliver_policy: DeliverPolicy.All }),
      ...mutable,
    });
  }
}

/** A durable of this name exists with another filter subject: an operator decides (the fix is named). */
export class ConsumerFilterConflictError extends Error {
  constructor(stream: string, durable: string, existing: string, declared: string) {
    super(
      `JetStream consumer "${durable}" on stream "${stream}" filters "${existing || '(nothing)'}", but this service declares "${declared}". ` +
        `Delete it (nats consumer rm ${stream} ${durable}) and start the service again: it is recreated with the declared filter and redelivers from the stream's start, which the consumers' checks (their execution streams, their inboxes) make harmless.`,
    );
    this.name = 'ConsumerFilterConflictError';
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === 404 || /not found/i.test(error.message));
}
