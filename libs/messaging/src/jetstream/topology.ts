import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamManager,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';

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

export interface ConsumerSpec {
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
export async function ensureDurableConsumer(jsm: JetStreamManager, stream: string, spec: ConsumerSpec, startSequence?: number): Promise<void> {
  const mutable = {
    ack_wait: (spec.ackWaitMs ?? 30_000) * NANOS_PER_MS,
    max_deliver: spec.maxDeliver ?? -1,
    max_ack_pending: spec.maxAckPending ?? 1000,
  };
  try {
    await jsm.consumers.info(stream, spec.durable);
    await jsm.consumers.update(stream, spec.durable, mutable);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(stream, {
      durable_name: spec.durable,
      filter_subject: spec.filterSubject,
      ack_policy: AckPolicy.Explicit,
      ...(startSequence ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSequence } : { deliver_policy: DeliverPolicy.All }),
      ...mutable,
    });
  }
}

export function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === 404 || /not found/i.test(error.message));
}
