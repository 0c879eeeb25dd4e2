import { Inject, Injectable } from '@nestjs/common';
import { IllegalTransitionError } from '@onceport/domain';
import { type CommandHandler, executionStream } from '@onceport/event-store';
import { COMMAND_HANDLER } from '@onceport/service-kit';
import { QueryExecutionService } from '../query-execution/query-execution.service';

/** Why a cancellation did not take: the execution's state and a sentence an agent can act on. */
export class CancelRefusedError extends Error {
  override readonly name = 'CancelRefusedError';
  readonly code = 'cancel_refused';

  constructor(
    readonly executionId: string,
    readonly state: string,
    message: string,
  ) {
    super(message);
  }
}

/** The reason recorded on an execution its own caller cancelled (shown to agents and operators). */
export const CANCELLED_BY_CALLER = 'Cancelled by its caller before it was dispatched; nothing was sent to the target.';

/**
 * An agent cancels its own execution. Before dispatch nothing has left the gateway, so the execution
 * is denied (`cancelled_by_caller`) and a matching retry gets the same denial. From dispatch on,
 * something may have reached the target: a cancel would hide that, so it is refused with the state.
 * The decider settles the race with a dispatcher starting at the same moment (expected version).
 */
@Injectable()
export class CancelExecutionService {
  constructor(
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    private readonly query: QueryExecutionService,
  ) {}

  async cancel(executionId: string, actor: string, causationId: string): Promise<void> {
    // Ownership first: another actor's execution is as unknown as one that never existed.
    await this.query.status(executionId, actor);
    try {
      await this.commands.handle(
        executionStream(executionId),
        (_loaded, now) => ({
          type: 'DenyExecution',
          metadata: { now },
          data: { code: 'cancelled_by_caller', reason: CANCELLED_BY_CALLER },
        }),
        { causationId },
      );
    } catch (error) {
      if (!(error instanceof IllegalTransitionError)) throw error;
      throw new CancelRefusedError(executionId, error.status, refusal(executionId, error.status));
    }
  }
}

function refusal(executionId: string, state: string): string {
  switch (state) {
    case 'dispatched':
    case 'dispatched_unknown':
    case 'needs_review':
      return `Execution ${executionId} is ${state}: it was already sent to the target, and a sent call cannot be unsent; it carries on. Poll for its outcome.`;
    default:
      return `Execution ${executionId} has already ended (${state}); there is nothing left to cancel.`;
  }
}
