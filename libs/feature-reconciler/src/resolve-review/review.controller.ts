import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { type ActorDirectory, bearerToken } from '@onceport/config';
import { IllegalTransitionError } from '@onceport/domain';
import { type OnceportRuntime, RUNTIME } from '@onceport/runtime';
import { ADMINS } from '../reconciler.tokens';

const MAX_BODY = 16 * 1024;

/**
 * An operator settles what machines couldn't: `needs_review` → applied / not applied, with a
 * reason. The resolution is an event with who and why; an agent asking again gets it.
 */
@Controller('v1/admin/executions')
export class ReviewController {
  constructor(
    @Inject(RUNTIME) private readonly runtime: OnceportRuntime,
    @Inject(ADMINS) private readonly admins: ActorDirectory,
  ) {}

  @Post(':id/resolve')
  async resolve(@Param('id') id: string, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const admin = this.admins.authenticateAdmin(bearerToken(req.headers.authorization));
    if (!admin) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="onceport-admin"');
      return problem(res, 401, 'unauthorized', 'send Authorization: Bearer <admin key>');
    }
    const body = await readBody(req);
    if (body === null) return problem(res, 400, 'malformed_json', 'the body must be JSON: {"resolution": "applied" | "not_applied", "reason": "…"}');
    const resolution = body['resolution'];
    const reason = body['reason'];
    if (resolution !== 'applied' && resolution !== 'not_applied') return problem(res, 400, 'resolution_required', 'resolution: must be "applied" or "not_applied"');
    if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 1000) return problem(res, 400, 'reason_required', 'reason: a sentence of 1–1000 characters saying why');
    if (!/^exe_[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) return problem(res, 404, 'execution_not_found', `no execution ${id}`);
    try {
      const handled = await this.runtime.executions.handle(
        id,
        (loaded, now) => (loaded.state.status === 'none' ? null : { type: 'ResolveReview', data: { resolution, reviewer: admin.id, reason }, metadata: { now } }),
        { causationId: `admin:${admin.id}`, actor: admin.id },
      );
      if (handled.state.status === 'none') return problem(res, 404, 'execution_not_found', `no execution ${id}`);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ execution_id: id, state: handled.state.status, resolved_by: admin.id }));
    } catch (error) {
      if (error instanceof IllegalTransitionError) return problem(res, 409, 'not_in_review', error.message);
      throw error;
    }
  }
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function problem(res: ServerResponse, status: number, type: string, detail: string): void {
  res.writeHead(status, { 'Content-Type': 'application/problem+json' }).end(JSON.stringify({ type: `https://onceport.dev/problems/${type}`, title: type.replace(/_/g, ' '), status, detail }));
}
