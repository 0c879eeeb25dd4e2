import type { NatsMessageCounts, NatsServer } from '@onceport/fault-kit';

/** What NATS carried per execution (or per caller) over a round, as the server counted it: the cost model's broker side. */
export interface BrokerCost {
  /** Messages the server received from every client (publishes, acks, JetStream API requests). */
  readonly messagesInPerExecution: number;
  /** Messages it sent (deliveries to subscribers and consumers, replies, acks). */
  readonly messagesOutPerExecution: number;
  readonly kilobytesInPerExecution: number;
}

/** The server's counters now; null when it was started without monitoring. */
export function startCountingMessages(nats: NatsServer): Promise<NatsMessageCounts | null> {
  return nats.monitorPort === null ? Promise.resolve(null) : nats.messageCounts();
}

/** The messages since `since`, per execution. */
export async function messagesPerExecution(nats: NatsServer, since: NatsMessageCounts, executions: number): Promise<BrokerCost> {
  const now = await nats.messageCounts();
  const per = (n: number): number => (executions === 0 ? Number.NaN : n / executions);
  return {
    messagesInPerExecution: per(now.inMsgs - since.inMsgs),
    messagesOutPerExecution: per(now.outMsgs - since.outMsgs),
    kilobytesInPerExecution: per((now.inBytes - since.inBytes) / 1024),
  };
}
