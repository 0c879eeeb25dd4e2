import { type IncomingMessage } from 'node:http';
import { Controller, Get, Headers, HttpCode, Inject, Post, Req, UseFilters } from '@nestjs/common';
import { type VaultCommand, type VaultState } from '@onceport/domain';
import { type CommandHandler, vaultStream } from '@onceport/event-store';
import type { Tracer } from '@opentelemetry/api';
import { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from '../authorization.options';
import { headerOf } from '../http/admin-request';
import { reasonOf } from './vault-reason';
import { changeVault } from './change-vault';
import {
  COMMAND_HANDLER,
  ProblemDetailsFilter,
  TRACER,
  contextFromTraceparent,
  currentTraceContext,
  inSpan,
  readJsonBodyOrProblem as readJsonBody,
  requestIdOrFresh,
  requireAdmin,
} from '@onceport/service-kit';

export type VaultView = VaultState & { readonly version: number };
export type VaultChangeView = VaultView & { readonly changed: boolean };

/**
 * The operator's hand on the first rung of the ladder. Locking a locked vault answers 200 with
 * `changed: false`: the operator's intent holds either way, and a panic-button retry must not fail.
 */
@Controller('v1/admin/vault')
@UseFilters(ProblemDetailsFilter)
export class VaultAdminController {
  constructor(
    @Inject(AUTHORIZATION_OPTIONS) private readonly options: AuthorizationOptions,
    @Inject(COMMAND_HANDLER) private readonly commands: CommandHandler,
    @Inject(TRACER) private readonly tracer: Tracer,
  ) {}

  @Get()
  async state(@Headers('authorization') authorization: string | undefined): Promise<VaultView> {
    await requireAdmin(this.options.directory, authorization);
    const loaded = await this.commands.load(vaultStream());
    return { ...loaded.state, version: loaded.version };
  }

  @Post('lock')
  @HttpCode(200)
  lock(@Headers('authorization') authorization: string | undefined, @Req() request: IncomingMessage): Promise<VaultChangeView> {
    return this.change('LockVault', authorization, request);
  }

  @Post('unlock')
  @HttpCode(200)
  unlock(@Headers('authorization') authorization: string | undefined, @Req() request: IncomingMessage): Promise<VaultChangeView> {
    return this.change('UnlockVault', authorization, request);
  }

  private async change(type: VaultCommand['type'], authorization: string | undefined, request: IncomingMessage): Promise<VaultChangeView> {
    // Authenticate before reading the body: an anonymous caller gets nothing parsed.
    const admin = await requireAdmin(this.options.directory, authorization);
    const reason = reasonOf(await readJsonBody(request));
    const traceparent = headerOf(request, 'traceparent');
    const name = type === 'LockVault' ? 'vault lock' : 'vault unlock';
    return inSpan(
      this.tracer,
      name,
      contextFromTraceparent(traceparent, headerOf(request, 'tracestate')),
      { 'onceport.admin': admin.id },
      async () => {
        const causationId = `admin:${requestIdOrFresh(headerOf(request, 'x-request-id'))}`;
        const result = await changeVault(this.commands, type, admin.id, reason, { causationId, ...currentTraceContext() });
        this.options.log('info', result.changed ? `${name}ed` : `${name}: already so`, {
          by: admin.id,
          status: result.state.status,
          changed: result.changed,
        });
        return { ...result.state, version: result.version, changed: result.changed };
      },
    );
  }
}
