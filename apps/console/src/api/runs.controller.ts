import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { UpstreamClient } from '../upstream/upstream-client';
import { ConsoleGate } from './console-gate';
import { ConsoleRefusal, RUN_ID, answering, bodyOf, reasonOf, relay, segment } from './console-http';

/** What the runs list may be asked, each bounded here; intake checks the values themselves. */
const LIST_PARAMETERS = new Set(['limit', 'actor', 'trigger', 'cursor']);
const MAX_PARAMETER = 200;

/** Runs (intake; an admin key reads any run): the list, attempts and their executions, the replay check, a forced replay. */
@Controller('api/runs')
export class RunsController {
  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
  ) {}

  @Get()
  async list(@Req() req: IncomingMessage, @Res() res: ServerResponse, @Query() query: Record<string, unknown>): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => {
      relay(res, await this.upstream.call('intake', 'GET', `/v1/runs${listQuery(query)}`, session.credential));
    });
  }

  @Get(':id')
  async one(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    await this.read(id, '', req, res);
  }

  @Get(':id/divergence')
  async divergence(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    await this.read(id, '/divergence', req, res);
  }

  /** The replay check asked without starting anything: which tools a replay would send again, and why each is unsafe. */
  @Get(':id/replay-check')
  async replayCheck(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    await this.read(id, '/replay-check', req, res);
  }

  /** An operator forces a replay the check refused: a reason is required, and intake audits it with what may repeat. */
  @Post(':id/replays')
  async forceReplay(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const session = this.gate.change(req, res);
    if (!session) return;
    await answering(res, async () => {
      const path = `/v1/runs/${segment(id, RUN_ID, 'run id')}/replays`;
      const reason = reasonOf(await bodyOf(req));
      relay(res, await this.upstream.call('intake', 'POST', path, session.credential, { force: { reason } }));
    });
  }

  private async read(id: string, sub: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = this.gate.session(req, res);
    if (!session) return;
    await answering(res, async () => {
      relay(res, await this.upstream.call('intake', 'GET', `/v1/runs/${segment(id, RUN_ID, 'run id')}${sub}`, session.credential));
    });
  }
}

/** The list's query passed on: known parameters only, each one string of bounded length. */
export function listQuery(query: Record<string, unknown>): string {
  const forwarded = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (!LIST_PARAMETERS.has(name))
      throw new ConsoleRefusal(
        400,
        'invalid_query',
        'Invalid query',
        `${JSON.stringify(name.slice(0, 64))}: expected limit, actor, trigger or cursor.`,
      );
    if (typeof value !== 'string' || value.length > MAX_PARAMETER)
      throw new ConsoleRefusal(400, 'invalid_query', 'Invalid query', `"${name}": one value of at most ${MAX_PARAMETER} characters.`);
    if (value !== '') forwarded.set(name, value);
  }
  const text = forwarded.toString();
  return text === '' ? '' : `?${text}`;
}
