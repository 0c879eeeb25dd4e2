import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { SERVICE_LOG, type ServiceLog } from '@onceport/service-kit';
import { sendProblemOf } from '../api/console-http';
import { CONSOLE_ENV, type ConsoleEnv } from '../console-env';
import { sessionCookie } from '../session/session-cookie';
import { SessionStore } from '../session/session-store';
import { UpstreamClient, UpstreamUnavailableError } from '../upstream/upstream-client';
import { CONSOLE_OAUTH, type ConsoleOAuth } from './console-oauth';
import { ConsoleOAuthClient, type OperatorTokens, SignInFailed } from './oauth-client';
import { clearedSignInCookie, signInCookie, signInIdOf } from './sign-in-cookie';
import { SIGN_IN_TTL_MS, type SignInTransaction, SignInTransactions } from './sign-in-transactions';

/**
 * Operators sign in at the OAuth issuer (authorization code + PKCE): `start` sends the browser there,
 * `callback` takes it back, exchanges the code, has the authorization service confirm the token is an
 * admin's, and opens a session holding the token server-side. Both are plain navigations; what went
 * wrong is kept for the sign-in page (GET /api/session), not put in a URL.
 */
@Controller('api/session/oauth')
export class OAuthSignInController implements OnModuleDestroy {
  constructor(
    @Inject(CONSOLE_OAUTH) private readonly oauth: ConsoleOAuth | null,
    @Inject(SignInTransactions) private readonly transactions: SignInTransactions,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
    @Inject(CONSOLE_ENV) private readonly env: ConsoleEnv,
    @Inject(SERVICE_LOG) private readonly log: ServiceLog,
  ) {}

  /** What the sign-in page offers, and a failed OAuth sign-in of this browser (told once). */
  @Get()
  status(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    const error = this.transactions.takeError(signInIdOf(req));
    res.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...(error ? { 'set-cookie': clearedSignInCookie(this.secure) } : {}),
    });
    res.end(JSON.stringify({ sign_in_with: this.oauth ? { name: this.oauth.name, url: 'api/session/oauth/start' } : null, error }));
  }

  @Get('start')
  async start(@Req() _req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    if (!this.oauth) return sendProblemOf(res, 404, 'oauth_not_configured', 'No OAuth sign-in', 'This console takes admin keys only.');
    const transaction = this.transactions.start(ConsoleOAuthClient.newCodeVerifier());
    let location: string;
    try {
      location = await this.oauth.client.authorizationUrl(transaction);
    } catch (error) {
      this.transactions.fail(transaction, messageOf(error));
      return this.backToSignIn(res, transaction);
    }
    res.writeHead(303, {
      location,
      'cache-control': 'no-store',
      'set-cookie': signInCookie(transaction.id, SIGN_IN_TTL_MS / 1000, this.secure),
    });
    res.end();
  }

  @Get('callback')
  async callback(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    const transaction = this.transactions.find(signInIdOf(req));
    if (!this.oauth || !transaction || transaction.error !== null) {
      // No sign-in of this browser is under way (expired, finished, or someone else's link): start over.
      res.writeHead(303, { location: '/', 'cache-control': 'no-store', 'set-cookie': clearedSignInCookie(this.secure) }).end();
      return;
    }
    try {
      const tokens = await this.oauth.client.exchange(this.callbackUrl(req), transaction);
      await this.confirmAdmin(tokens);
      this.transactions.finish(transaction.id);
      const session = this.sessions.open({ credential: tokens.accessToken, via: 'oauth', expiresAt: tokens.expiresAt });
      this.oauth.refresher.schedule(session.id, tokens);
      this.log('info', 'an operator signed in with OAuth', {
        expires_at: tokens.expiresAt ? new Date(tokens.expiresAt).toISOString() : null,
      });
      res.writeHead(303, {
        location: '/',
        'cache-control': 'no-store',
        'set-cookie': [sessionCookie(session.id, this.secure), clearedSignInCookie(this.secure)],
      });
      res.end();
    } catch (error) {
      this.transactions.fail(transaction, messageOf(error));
      this.log('info', 'an OAuth sign-in was refused', { reason: messageOf(error) });
      this.backToSignIn(res, transaction);
    }
  }

  onModuleDestroy(): void {
    this.oauth?.refresher.stop();
  }

  /** The services decide who is an admin: the token must open the authorization service's vault view. */
  private async confirmAdmin(tokens: OperatorTokens): Promise<void> {
    let answer;
    try {
      answer = await this.upstream.call('authorization', 'GET', '/v1/admin/vault', tokens.accessToken);
    } catch (error) {
      if (error instanceof UpstreamUnavailableError) throw new SignInFailed(`${error.message}; try again in a moment`);
      throw error;
    }
    if (answer.status === 200) return;
    const detail = (answer.body as { detail?: unknown } | null)?.detail;
    const why = typeof detail === 'string' ? detail.slice(0, 400) : `the authorization service answered ${answer.status}`;
    throw new SignInFailed(
      answer.status === 401 || answer.status === 403 ? `You signed in, but this operator is not an admin of Onceport: ${why}` : why,
    );
  }

  /** The callback as the issuer called it, on the configured redirect URL (never the request's Host). */
  private callbackUrl(req: IncomingMessage): URL {
    const url = new URL(this.env.ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL ?? 'http://invalid');
    const query = (req.url ?? '').split('?')[1] ?? '';
    url.search = query.length > 8_192 ? '' : query;
    return url;
  }

  private backToSignIn(res: ServerResponse, transaction: SignInTransaction): void {
    // The cookie stays (for the page to read the failure once); the transaction can no longer finish.
    res.writeHead(303, { location: '/', 'cache-control': 'no-store', 'set-cookie': signInCookie(transaction.id, 60, this.secure) });
    res.end();
  }

  private get secure(): boolean {
    return this.env.ONCEPORT_CONSOLE_SECURE_COOKIE === 'true';
  }
}

function messageOf(error: unknown): string {
  return error instanceof SignInFailed ? error.message : `the sign-in did not complete: ${String(error).slice(0, 200)}`;
}
