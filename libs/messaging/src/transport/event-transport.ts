import type { InjectionToken } from '@nestjs/common';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { DeliveryContext } from '../consumer/event-handler';
import type { ConsumerSpec, EventConsumer, EventDelivery } from '../delivery/event-delivery.port';
import type { WireEvent } from '../wire-event';
import { CONSUMER_OPTIONS, type ConsumerOptions, type ConsumerSettings } from './consume-events.decorator';
import { subscribedEventOf } from './event-subject';

/** Looks a provider up in the app (`app.get(token, { strict: false })`), for options known only at start. */
export type ProviderLookup = (token: InjectionToken) => unknown;

interface Route {
  readonly options: ConsumerOptions;
  /** By event type: every version of a type reaches its one handler. */
  readonly handlers: Map<string, MessageHandler>;
}

/**
 * A Nest transport over the process's event delivery: every `@ConsumeEvents` handler joins the
 * consumer of its durable; `listen` starts one consumer per durable, `close` stops them (they stop
 * taking work, and in-flight handlers finish and are acknowledged) — Nest closes transports after
 * `beforeApplicationShutdown` and before `onApplicationShutdown`, where the runtime closes the pool.
 * The delivery's guarantees stay its own: ack only after the handler's promise resolved, nak and
 * redeliver on failure, quarantine after the configured attempts, the inbox against redelivery.
 */
/** What a transport tells `on()` listeners about. */
// A type, not an interface: Server wants a Record<string, Function>, which only a type literal satisfies.
export type EventTransportEvents = { error: (error: unknown) => void };

export abstract class EventTransport extends Server<EventTransportEvents, 'listening' | 'closed'> implements CustomTransportStrategy {
  private readonly routes = new Map<string, Route>();
  private readonly consumers: EventConsumer[] = [];
  private readonly errorListeners: ((error: unknown) => void)[] = [];

  protected constructor(
    private readonly delivery: EventDelivery,
    private readonly lookup: ProviderLookup = () => undefined,
  ) {
    super();
  }

  /** Called by Nest for every pattern of every handler (`connectMicroservice`); Nest's own chaining is not used. */
  override addHandler(pattern: unknown, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    const options = extras[CONSUMER_OPTIONS] as ConsumerOptions | undefined;
    if (!isEventHandler || !options) throw new Error(`${String(pattern)}: handlers of onceport events are declared with @ConsumeEvents`);
    const { type } = subscribedEventOf(String(pattern));
    const route = this.routes.get(options.durable) ?? { options, handlers: new Map<string, MessageHandler>() };
    if (route.options.inbox !== options.inbox) throw new Error(`consumer ${options.durable}: its handlers disagree on the inbox mode`);
    if (route.handlers.has(type)) throw new Error(`consumer ${options.durable}: two handlers for ${type}`);
    route.handlers.set(type, callback);
    this.routes.set(options.durable, route);
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const [durable, route] of this.routes) {
        const consumer = this.delivery.consumer(this.specOf(durable, route), (event, context) => this.handle(route, event, context));
        this.consumers.push(consumer);
        await consumer.start();
      }
      this._status$.next('listening');
    } catch (error) {
      callback(error);
      return;
    }
    callback();
  }

  async close(): Promise<void> {
    const consumers = this.consumers.splice(0);
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    this._status$.next('closed');
  }

  /** `on('error', listener)`: told of every failed handler (the delivery has already decided to redeliver or quarantine). */
  on<Key extends keyof EventTransportEvents, Callback extends EventTransportEvents[Key]>(event: Key, callback: Callback): void {
    if (event !== 'error') throw new Error(`event transport: no ${JSON.stringify(event)} events, only "error"`);
    this.errorListeners.push(callback);
  }

  abstract override unwrap<T>(): T;

  private specOf(durable: string, route: Route): ConsumerSpec {
    const { options } = route;
    const late = options.settingsFrom ? (this.lookup(options.settingsFrom) as ConsumerSettings | undefined) : undefined;
    if (options.settingsFrom && !late)
      throw new Error(`consumer ${durable}: no provider for its settings (${String(options.settingsFrom)})`);
    const concurrency = late?.concurrency ?? options.concurrency;
    const ackWaitMs = late?.ackWaitMs ?? options.ackWaitMs;
    return {
      durable,
      eventTypes: [...route.handlers.keys()],
      inbox: options.inbox,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(ackWaitMs !== undefined ? { ackWaitMs } : {}),
    };
  }

  /** The handler's result as a promise: it rejects with the handler's own error (see HandlerErrorsToDelivery). */
  private async handle(route: Route, event: WireEvent, context: DeliveryContext): Promise<void> {
    const handler = route.handlers.get(event.type);
    if (!handler) return; // not subscribed: each consumer takes only the types of its handlers
    try {
      await lastValueFrom(this.transformToObservable(await handler(event, context)), { defaultValue: undefined });
    } catch (error) {
      for (const listener of this.errorListeners) listener(error);
      throw error;
    }
  }
}
