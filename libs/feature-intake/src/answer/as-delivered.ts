import type { AgentAnswer } from './agent-answer';

/**
 * The answer as the agent reading it knows it: the response that carries a result is its delivery,
 * so it says `completed`, not `completed_result_not_delivered`. The store still records the delivery
 * only once the response was written (`RecordDeliveryService.recordAfterResponse`).
 */
export function asDelivered(answer: AgentAnswer): AgentAnswer {
  return answer.state === 'completed_result_not_delivered' ? { ...answer, state: 'completed' } : answer;
}
