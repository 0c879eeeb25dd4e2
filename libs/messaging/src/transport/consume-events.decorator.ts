import { type InjectionToken, UseFilters, applyDecorators } from '@nestjs/common';
import { EventPattern } from '@nestjs/microservices';
import type { InboxMode } from '../consumer/event-handler';
import type { ConsumerSpec } from '../delivery/event-delivery.port';
import { HandlerErrorsToDelivery } from './handler-errors.filter';

/** The key under which a handler's consumer options travel in the pattern's extras. */
export const CONSUMER_OPTIONS = 'onceportConsumer';

/** What a consumer needs that is only known at start (from configuration or contracts). */
export type ConsumerSettings = Pick<ConsumerSpec, 'concurrency' | 'ackWaitMs'>;

/** How the events of one handler are consumed; handlers sharing a durable share its consumer and must agree. */
export interface ConsumerOptions {
  /** The service's durable name: replicas with the same name share the work; the inbox and quarantine are keyed by it. */
  readonly durable: string;
  readonly inbox: InboxMode;
  /** Handlers running at once per replica. */
  readonly concurrency?: number;
  readonly ackWaitMs?: number;
  /** A provider (by token) of {@link ConsumerSettings} known only at start; its values override the two above. */
  readonly settingsFrom?: InjectionToken;
}

/**
 * `@EventPattern` on versioned subjects, with the consumer's options as the pattern's extras and a
 * filter that hands a handler's error to the delivery unchanged (so it naks and, in time,
 * quarantines with the real message). The consumer filters on every version of each type: older
 * versions reach the handler too, to be upcast by the contracts' registry.
 *
 * @example @ConsumeEvents(eventSubject('ExecutionAccepted', 1), { durable: 'authorization', inbox: 'by_stream' })
 */
export function ConsumeEvents(subjects: string | readonly string[], options: ConsumerOptions): MethodDecorator {
  const patterns = typeof subjects === 'string' ? [subjects] : [...subjects];
  return applyDecorators(EventPattern(patterns, { [CONSUMER_OPTIONS]: options }), UseFilters(new HandlerErrorsToDelivery()));
}
