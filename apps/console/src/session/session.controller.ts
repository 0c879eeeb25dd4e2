import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Delete, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { CONSOLE_ENV, type ConsoleEnv } from '../console-env';
import { CONSOLE_HEADER } from '../api/console-gate';
import { ConsoleRefusal, answering, bodyOf, sendProblemOf } from '../api/console-http';
import { CONSOLE_OAUTH, type ConsoleOAuth } from '../oauth/console-oauth';
import { UpstreamClient } from '../upstream/upstream-client';
import { clearedSessionCookie, sessionCookie, sessionIdOf } from './session-cookie';
import { SessionStore } from './session-store';

const MAX_KEY = 512;

/**
 * Sign-in with an admin key: the authorization service says whether it is one (its vault view
 * answers admins only); the key then stays in this process and the browser holds an HttpOnly
 * session cookie, never the key. (Sign-in with OAuth: oauth/oauth-sign-in.controller.ts.)
 */
@Controller('api/session')
export class SessionController {
  constructor(
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
    @Inject(CONSOLE_ENV) private readonly env: ConsoleEnv,
    @Inject(CONSOLE_OAUTH) private readonly oauth: ConsoleOAuth | null,
  ) {}

  @Get()
  state(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    const session = this.sessions.find(sessionIdOf(req));
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(
      JSON.stringify({
        signed_in: session !== null,
        signed_in_at: session?.signedInAt.toISOString() ?? null,
        signed_in_with: session?.via ?? null,
        expires_at: session?.expiresAt ? new Date(session.expiresAt).toISOString() : null,
        trace_ui_url: this.env.ONCEPORT_TRACE_UI_URL ?? null,
      }),
    );
  }

  @Post()
  async signIn(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    await answering(res, async () => {
      if (req.headers[CONSOLE_HEADER] !== '1')
        throw new ConsoleRefusal(
          403,
          'not_from_console',
          'Not from the console',
          `Sign in from the console's page (${CONSOLE_HEADER}: 1).`,
        );
      const key = (await bodyOf(req))['key'];
      if (typeof key !== 'string' || key.trim() === '' || key.length > MAX_KEY || /\s/.test(key.trim()))
        throw new ConsoleRefusal(
          400,
          'key_required',
          'An admin key is required',
          `"key": the admin key, 1–${MAX_KEY} characters without spaces.`,
        );
      const answer = await this.upstream.call('authorization', 'GET', '/v1/admin/vault', key.trim());
      if (answer.status === 401)
        return sendProblemOf(res, 401, 'not_an_admin_key', 'Not an admin key', 'That key is not an admin key of this installation.');
      if (answer.status !== 200)
        return sendProblemOf(res, 502, 'service_unavailable', 'Cannot sign in now', `The authorization service answered ${answer.status}.`);
      const session = this.sessions.open(key.trim());
      res.writeHead(200, {
        'content-type': 'application/json',
        'cache-control': 'no-store',
        'set-cookie': sessionCookie(session.id, this.secure),
      });
      res.end(JSON.stringify({ signed_in: true, signed_in_at: session.signedInAt.toISOString() }));
    });
  }

  @Delete()
  signOut(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    const id = sessionIdOf(req);
    if (id) this.oauth?.refresher.cancel(id);
    this.sessions.close(id);
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': clearedSessionCookie(this.secure) });
    res.end(JSON.stringify({ signed_in: false }));
  }

  private get secure(): boolean {
    return this.env.ONCEPORT_CONSOLE_SECURE_COOKIE === 'true';
  }
}
