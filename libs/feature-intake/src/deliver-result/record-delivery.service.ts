import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { RequestCorrelation, Transport } from '@onceport/contracts';
import { IllegalTransitionError } from '@onceport/domain';
import { type CommandHandler, executionStream } from '@onceport/event-store';
import { COMMAND_HANDLER, SERVICE_LOG, type ServiceLog } from '@onceport/service-kit';
import { DELIVERABLE_STATES, type AgentAnswer } from '../answer/agent-answer';

/** The pauses before each new try of a `ResultDelivered` write that failed after the answer went out. */
const RETRY_DELAYS_MS = [100, 500, 2_000] as const;

/**
 * "Result observed" and "result delivered" are different facts: this records the second, and is
 * called only once the answer was written to the client's connection.
 */
@Injectable()
export class RecordDeliveryService {
  constructor(
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    @Inject(SERVICE_LOG) private readonly log: ServiceLog,
  ) {}

  /**
   * `onNewestFold`: decide on the fold the answer was built from, without reading the stream again
   * (the first try after the response; a try after a failure reads, in case the failed one committed).
   */
  async delivered(answer: AgentAnswer, transport: Transport, correlation: RequestCorrelation, onNewestFold = false): Promise<void> {
    if (!DELIVERABLE_STATES.has(answer.state)) return;
    try {
      await this.commands.handle(
        executionStream(answer.execution_id),
        (_loaded, now) => ({ type: 'RecordDelivery', metadata: { now }, data: { transport, replay: answer.replay, correlation } }),
        { causationId: correlation.requestId ?? `${transport}:${String(correlation.jsonRpcId ?? '')}` },
        // Deliveries are facts about connections; they commute with everything else on the stream.
        { appendAnywhere: true, onNewestFold },
      );
    } catch (error) {
      // A second "first" delivery (two callers answered at once) is refused by the decider: the
      // first one is the fact on record, nothing else to do.
      if (!(error instanceof IllegalTransitionError)) throw error;
    }
  }

  /**
   * Records the delivery of an answer already sent, in the background (the response is gone: there
   * is nobody to fail to). A failed write is logged and tried again; if every try fails, the
   * execution stays `completed_result_not_delivered`, so the caller's next retry attaches and is
   * answered with the result again — it is never told "already delivered" for an answer it lost.
   */
  recordAfterResponse(answer: AgentAnswer, transport: Transport, correlation: RequestCorrelation): void {
    void this.recordWithRetries(answer, transport, correlation);
  }

  private async recordWithRetries(answer: AgentAnswer, transport: Transport, correlation: RequestCorrelation): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.delivered(answer, transport, correlation, attempt === 1);
        return;
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt - 1];
        const fields = { executionId: answer.execution_id, transport, attempt, error: String(error) };
        if (delay === undefined) {
          this.log('error', 'result delivery not recorded: the next retry of this call is answered with the result again', fields);
          return;
        }
        this.log('warn', 'recording a result delivery failed; trying again', fields);
        // Unref'd: a process shutting down does not wait for it (the state left answers the retry).
        await sleep(delay, undefined, { ref: false });
      }
    }
  }
}
