import { randomUUID } from 'node:crypto';
import { type ConsumerInfo, type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { eventSubject, kebabEventName } from '@onceport/contracts';
import { EXECUTION_STREAM_NAME } from '@onceport/messaging';
import type { TestDatabase } from '@onceport/event-store/testing';

/**
 * The dispatcher's durable consumer for ExecutionAuthorized, as the consumer wrapper names it
 * (`<durable>--<kebab event>`). Spelled out here: an e2e test may not import a feature lib.
 */
const DISPATCHER_AUTHORIZED_CONSUMER = `dispatcher--${kebabEventName('ExecutionAuthorized')}`;

/** The message the relay published for an execution's ExecutionAuthorized, rebuilt from the store. */
export interface AuthorizedMessage {
  readonly eventId: string;
  readonly subject: string;
  readonly wire: {
    type: string;
    schemaVersion: number;
    data: unknown;
    metadata: Record<string, unknown>;
    stream: { id: string; version: number; position: string };
  };
}

export async function authorizedMessage(db: TestDatabase, executionId: string): Promise<AuthorizedMessage> {
  const result = await db.pool.query(
    `SELECT event_id, event_type, schema_version, data, metadata, stream_id, stream_version, global_position::text AS position
     FROM onceport.events WHERE stream_id = $1 AND event_type = 'ExecutionAuthorized'`,
    [`execution-${executionId}`],
  );
  const row = result.rows[0];
  if (!row) throw new Error(`no ExecutionAuthorized stored for ${executionId}`);
  return {
    eventId: row.event_id,
    subject: eventSubject(row.event_type, row.schema_version),
    wire: {
      type: row.event_type,
      schemaVersion: row.schema_version,
      data: row.data,
      metadata: { ...row.metadata, eventId: row.event_id },
      stream: { id: row.stream_id, version: row.stream_version, position: row.position },
    },
  };
}

/** Publishes into the dispatcher's input stream and reads what its durable consumer has done. */
export class DispatcherInput {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  static async open(natsUrl: string): Promise<DispatcherInput> {
    const nc = await connect({ servers: natsUrl });
    return new DispatcherInput(nc, jetstream(nc), await jetstreamManager(nc));
  }

  /** `msgId` decides whether JetStream stores it: the relay's own id (the event id) is a duplicate within the window. */
  async publish(message: AuthorizedMessage, msgId: string, eventId = message.eventId): Promise<{ duplicate: boolean; seq: number }> {
    const wire = { ...message.wire, metadata: { ...message.wire.metadata, eventId } };
    const ack = await this.js.publish(message.subject, JSON.stringify(wire), { msgID: msgId });
    return { duplicate: ack.duplicate, seq: ack.seq };
  }

  /** A redelivery JetStream stores and hands to the consumer: a fresh Nats-Msg-Id, the same event. */
  redeliver(message: AuthorizedMessage, eventId = message.eventId): Promise<{ duplicate: boolean; seq: number }> {
    return this.publish(message, `redelivery-${randomUUID()}`, eventId);
  }

  consumerInfo(): Promise<ConsumerInfo> {
    return this.jsm.consumers.info(EXECUTION_STREAM_NAME, DISPATCHER_AUTHORIZED_CONSUMER);
  }

  close(): Promise<void> {
    return this.nc.close();
  }
}
