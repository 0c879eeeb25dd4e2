import type { Pool } from 'pg';
import type { EventDelivery } from './event-delivery.port';
import { InProcessDelivery } from './in-process-delivery';
import { travelsOnJetStream } from './off-jetstream';

describe('events no service acts on', () => {
  it('travel on JetStream only from execution streams, and never the three no service acts on', () => {
    const execution = 'execution-exe_01J0000000000000000000000';
    expect(travelsOnJetStream({ streamId: execution, type: 'ExecutionAccepted' })).toBe(true);
    expect(travelsOnJetStream({ streamId: execution, type: 'OutcomeObserved' })).toBe(true);
    for (const type of ['DispatchStarted', 'RetryAttached', 'ResultDelivered'])
      expect(travelsOnJetStream({ streamId: execution, type })).toBe(false);
    expect(travelsOnJetStream({ streamId: 'intent-abc', type: 'IntentClaimed' })).toBe(false);
  });

  it('the in-process delivery refuses a consumer or listener of one at its start, as JetStream does', () => {
    const delivery: EventDelivery = new InProcessDelivery({} as Pool, () => undefined); // refused before the pool is touched
    const handler = async () => undefined;
    expect(() =>
      delivery.consumer({ durable: 'late', eventTypes: ['ExecutionAccepted', 'RetryAttached'], inbox: 'by_stream' }, handler),
    ).toThrow(/the consumer late asks for RetryAttached/);
    expect(() => delivery.hear(['DispatchStarted'], () => undefined)).toThrow(/a listener asks for DispatchStarted/);
    expect(() => delivery.hear(['OutcomeObserved'], () => undefined)).not.toThrow();
  });
});
