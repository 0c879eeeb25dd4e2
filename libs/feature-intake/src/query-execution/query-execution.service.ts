import { Inject, Injectable } from '@nestjs/common';
import type { ExecutionEventEnvelope } from '@onceport/contracts';
import { redactSensitiveArguments } from '@onceport/domain';
import type { AgentAnswer } from '../answer/agent-answer';
import { buildAnswer } from '../answer/build-answer';
import { ExecutionNotFoundError, ExecutionOfAnotherActorError } from '../call-tool/call-tool.errors';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';
import { type CommandHandler, type ResultStore, executionStream } from '@onceport/event-store';
import { COMMAND_HANDLER, RESULT_STORE } from '@onceport/service-kit';

export interface TimelineEntry {
  readonly version: number;
  readonly type: string;
  readonly at: string;
  readonly data: unknown;
}

/** An execution's state (and timeline) for the actor that owns it; for anyone else it is refused, never shown. */
@Injectable()
export class QueryExecutionService {
  constructor(
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    @Inject(RESULT_STORE) private readonly results: ResultStore,
  ) {}

  /**
   * `how.attached`: whether the asker is a later caller than the one the execution is for (the
   * status tool, REST); an MCP task asks for its own execution's outcome, which is no replay.
   */
  async status(
    executionId: string,
    actor: string,
    how: { attached: boolean } = { attached: true },
  ): Promise<{ answer: AgentAnswer; timeline: TimelineEntry[] }> {
    if (!/^exe_[0-9A-HJKMNP-TV-Z]{26}$/.test(executionId)) throw new ExecutionNotFoundError(executionId);
    const loaded = await this.commands.load(executionStream(executionId));
    if (loaded.state.status === 'none') throw new ExecutionNotFoundError(executionId);
    if (loaded.state.facts.actor !== actor) throw new ExecutionOfAnotherActorError(executionId);
    const answer = await buildAnswer(loaded.state, this.results, how);
    const timeline = loaded.events.map((event, i) => ({
      version: i + 1,
      type: event.type,
      at: event.metadata.occurredAt,
      data: this.shownData(event),
    }));
    return { answer, timeline };
  }

  /** Sensitive arguments never leave intake: sealed or (in events stored before sealing) clear, both shown as `[redacted]`. */
  private shownData(event: ExecutionEventEnvelope): unknown {
    if (event.type !== 'ExecutionAccepted') return event.data;
    return { ...event.data, arguments: redactSensitiveArguments(this.deps.contracts.get(event.data.tool), event.data.arguments) };
  }
}
