import { Controller, Get, Headers, Inject, Param, UseFilters } from '@nestjs/common';
import type { ActorDirectory } from '@onceport/config';
import { ExecutionId } from '@onceport/contracts';
import { type TraceView, investigate, loadTraceFromDatabase, traceView } from '@onceport/execution-trace';
import { PG_POOL, Problem, ProblemDetailsFilter, requireAdmin } from '@onceport/service-kit';
import type { Pool } from 'pg';
import { ACTOR_DIRECTORY } from '../auth/actor-directory.token';

/** Events shown at most: an execution's stream is short, but a looping agent's retries each add one. */
export const MAX_TIMELINE_EVENTS = 500;

/**
 * `onceport trace` for operators over HTTP (the console's execution page): the timeline, the five
 * questions answered, later executions of the same intent, and the trace ids to open in the tracing
 * backend — read from the event store, arguments withheld as the CLI withholds them.
 */
@Controller('v1/admin/executions')
@UseFilters(ProblemDetailsFilter)
export class TraceAdminController {
  constructor(
    @Inject(ACTOR_DIRECTORY) private readonly directory: ActorDirectory,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  @Get(':execution_id/trace')
  async trace(@Headers('authorization') authorization: string | undefined, @Param('execution_id') executionId: string): Promise<TraceView> {
    await requireAdmin(this.directory, authorization);
    if (!ExecutionId.safeParse(executionId).success)
      throw new Problem(
        400,
        'invalid_execution_id',
        'Invalid execution id',
        `${JSON.stringify(executionId.slice(0, 64))} is not an execution id (exe_ followed by 26 Crockford base32 characters).`,
      );
    const loaded = await loadTraceFromDatabase(this.pool, executionId, { maxEvents: MAX_TIMELINE_EVENTS });
    if (loaded.events.length === 0)
      throw new Problem(404, 'execution_not_found', 'Execution not found', `There is no execution ${executionId}.`);
    return traceView(loaded, investigate(executionId, loaded.events, loaded.laterExecutions));
  }
}
