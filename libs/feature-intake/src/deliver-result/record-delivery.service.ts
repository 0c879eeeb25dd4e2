import { Inject, Injectable } from '@nestjs/common';
import type { RequestCorrelation, Transport } from '@onceport/contracts';
import { IllegalTransitionError } from '@onceport/domain';
import { DELIVERABLE_STATES, type AgentAnswer } from '../answer/agent-answer';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';

/**
 * "Result observed" and "result delivered" are different facts: this records the second, and is
 * called only once the answer was written to the client's connection.
 */
@Injectable()
export class RecordDeliveryService {
  constructor(@Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies) {}

  async delivered(answer: AgentAnswer, transport: Transport, correlation: RequestCorrelation): Promise<void> {
    if (!DELIVERABLE_STATES.has(answer.state)) return;
    try {
      await this.deps.runtime.executions.handle(
        answer.execution_id,
        (_loaded, now) => ({ type: 'RecordDelivery', metadata: { now }, data: { transport, replay: answer.replay, correlation } }),
        { causationId: correlation.requestId ?? `${transport}:${String(correlation.jsonRpcId ?? '')}` },
        // Deliveries are facts about connections; they commute with everything else on the stream.
        { appendAnywhere: true },
      );
    } catch (error) {
      // A second "first" delivery (two callers answered at once) is refused by the decider: the
      // first one is the fact on record, nothing else to do.
      if (!(error instanceof IllegalTransitionError)) throw error;
    }
  }
}
