import type { CommittedEvent, StoredEvent } from '@onceport/event-store';
import type { EventHandler, InboxMode } from '../consumer/event-handler';

export interface ConsumerSpec {
  /** The service's durable name: replicas with the same name share the work. */
  readonly durable: string;
  readonly eventTypes: readonly string[];
  readonly inbox: InboxMode;
  readonly concurrency?: number;
  readonly ackWaitMs?: number;
}

export interface EventConsumer {
  start(): Promise<void>;
  /** Stops taking new events; in-flight handlers finish (and are acknowledged) first. */
  stop(): Promise<void>;
}

/**
 * How events reach the services. `jetstream`: the outbox relay publishes stored events and durable
 * consumers deliver them. `in_process` (the embedded start): consumers tail the store directly.
 * Same handlers, same inbox guarantees, either way.
 */
export interface EventDelivery {
  readonly kind: 'jetstream' | 'in_process';
  consumer(spec: ConsumerSpec, handler: EventHandler): EventConsumer;
  /** Something was just appended in this process: deliver it now rather than at the next poll. */
  nudge(): void;
  /**
   * Events this process's store just committed (its `onCommitted`): delivered now where the
   * delivery can do so without waiting for the store's tail. Never throws, never waits.
   */
  committed(events: readonly CommittedEvent[]): void;
  /**
   * Calls `heard` with the stream id of each event of `eventTypes` some process just committed, as
   * its writer sends it: a hint to read the store now, ahead of the store's own notice. Never the
   * event itself (anyone who can publish on the broker could forge that), and like any hint it may
   * be lost or repeated. Returns a function that stops hearing. Works before and after `start()`.
   */
  hear(eventTypes: readonly string[], heard: (streamId: string) => void): () => void;
  /**
   * Delivers a stored event again (the reconciler's backstop for a message the broker lost):
   * consumers' inboxes make it harmless if it was handled. In-process delivery reads the store
   * itself and never loses one, so there it does nothing.
   */
  redeliver(event: StoredEvent): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  isReady(): boolean;
}
