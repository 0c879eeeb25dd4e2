import { type IncomingMessage } from 'node:http';
import { Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, UseFilters } from '@nestjs/common';
import {
  type QuarantineChange,
  type QuarantineEntry,
  listQuarantine,
  quarantineEntry,
  releaseQuarantined,
  requestRetry,
} from '@onceport/event-store';
import type { Pool } from 'pg';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from '../authorization.options';
import { reasonOf } from '../vault/vault-reason';
import { eventIdOf, filterOf, limitOf, subscriberFilterOf, subscriberOf } from './quarantine-request';
import { PG_POOL, Problem, ProblemDetailsFilter, readJsonBodyOrProblem as readJsonBody, requireAdmin } from '@onceport/service-kit';

/**
 * Events a projection or consumer could not apply and skipped, for an operator: list them, ask the
 * owning subscriber to apply one again (it takes the request on its next pass, in whichever
 * process runs it), or release one for good with a reason. The quarantine is one table in the
 * shared database, so this API sees every service's entries.
 */
@Controller('v1/admin/quarantine')
@UseFilters(ProblemDetailsFilter)
export class QuarantineAdminController {
  constructor(
    @Inject(AUTHORIZATION_OPTIONS) private readonly options: AuthorizationOptions,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  @Get()
  async list(
    @Headers('authorization') authorization: string | undefined,
    @Query('status') status?: string,
    @Query('subscriber') subscriber?: string,
    @Query('limit') limit?: string,
  ): Promise<{ entries: QuarantineEntry[] }> {
    await requireAdmin(this.options.directory, authorization);
    return { entries: await listQuarantine(this.pool, filterOf(status), limitOf(limit), subscriberFilterOf(subscriber)) };
  }

  @Get(':subscriber/:event_id')
  async one(
    @Headers('authorization') authorization: string | undefined,
    @Param('subscriber') subscriber: string,
    @Param('event_id') eventId: string,
  ): Promise<QuarantineEntry> {
    await requireAdmin(this.options.directory, authorization);
    const entry = await quarantineEntry(this.pool, subscriberOf(subscriber), eventIdOf(eventId));
    if (!entry) throw notFound(subscriber, eventId);
    return entry;
  }

  @Post(':subscriber/:event_id/retry')
  @HttpCode(200)
  async retry(
    @Headers('authorization') authorization: string | undefined,
    @Param('subscriber') subscriber: string,
    @Param('event_id') eventId: string,
  ): Promise<QuarantineEntry> {
    const admin = await requireAdmin(this.options.directory, authorization);
    const change = await requestRetry(this.pool, subscriberOf(subscriber), eventIdOf(eventId), admin.id);
    this.options.log('info', 'quarantine retry requested', { subscriber, eventId, by: admin.id, ok: change.ok });
    return entryOf(change, subscriber, eventId);
  }

  @Post(':subscriber/:event_id/release')
  @HttpCode(200)
  async release(
    @Headers('authorization') authorization: string | undefined,
    @Param('subscriber') subscriber: string,
    @Param('event_id') eventId: string,
    @Req() request: IncomingMessage,
  ): Promise<QuarantineEntry> {
    // Authenticate before reading the body: an anonymous caller gets nothing parsed.
    const admin = await requireAdmin(this.options.directory, authorization);
    const reason = reasonOf(await readJsonBody(request));
    const change = await releaseQuarantined(this.pool, subscriberOf(subscriber), eventIdOf(eventId), admin.id, reason);
    if (change.ok) this.options.log('info', 'quarantined event released', { subscriber, eventId, by: admin.id });
    return entryOf(change, subscriber, eventId);
  }
}

function entryOf(change: QuarantineChange, subscriber: string, eventId: string): QuarantineEntry {
  if (change.ok) return change.entry;
  if (change.reason === 'not_found') throw notFound(subscriber, eventId);
  throw new Problem(
    409,
    'not_quarantined',
    'Not quarantined',
    `The entry is ${change.entry?.status ?? 'gone'}: only a quarantined event can be retried or released.`,
  );
}

function notFound(subscriber: string, eventId: string): Problem {
  return new Problem(
    404,
    'quarantine_entry_not_found',
    'Not in the quarantine',
    `No quarantine entry for subscriber ${subscriber} and event ${eventId}.`,
  );
}
