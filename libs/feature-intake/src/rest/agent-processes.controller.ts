import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { IntakeErrorFilter } from '../internal-errors/intake-error.filter';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../intake-dependencies';
import { RestAgentProcesses } from './agent-processes';
import { authenticateActor } from './authenticate-actor';
import { sendJson } from './problem';

/**
 * REST agent processes are issued by the server, as MCP session ids are: a runtime asks for one when
 * it starts and sends it as Onceport-Agent-Process on every call. A session grant a human gives is
 * bound to that id, and the id to the actor (DESIGN.md §6).
 */
@Controller('v1/agent-processes')
@UseFilters(IntakeErrorFilter)
export class AgentProcessesController {
  constructor(
    @Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies,
    @Inject(RestAgentProcesses) private readonly processes: RestAgentProcesses,
  ) {}

  @Post()
  async issue(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const actor = await authenticateActor(this.deps, req, res);
    if (!actor) return;
    // No body is needed; one sent is left unread rather than refused.
    req.resume();
    const issued = await this.processes.issue(actor.id);
    sendJson(res, 201, {
      agent_process: issued.agentProcess,
      actor: issued.actor,
      issued_at: issued.issuedAt,
      usage:
        'send it as the Onceport-Agent-Process header on every POST /v1/executions of this agent process; keep it private to the process',
    });
  }
}
