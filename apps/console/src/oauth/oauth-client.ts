import * as oidc from 'openid-client';
import type { ConsoleEnv } from '../console-env';
import type { SignInTransaction } from './sign-in-transactions';

/** What the console keeps of a token response: server-side only, never logged. */
export interface OperatorTokens {
  readonly accessToken: string;
  /** When the access token stops being valid (ms since the epoch), from `expires_in`; null when the issuer did not say. */
  readonly expiresAt: number | null;
  readonly refreshToken: string | null;
}

/** The issuer said no, or could not be reached: a sentence for the sign-in page (never a token or a code). */
export class SignInFailed extends Error {
  override readonly name = 'SignInFailed';
}

export type OAuthClientSettings = Required<
  Pick<ConsoleEnv, 'ONCEPORT_CONSOLE_OAUTH_ISSUER' | 'ONCEPORT_CONSOLE_OAUTH_CLIENT_ID' | 'ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL'>
> &
  Pick<ConsoleEnv, 'ONCEPORT_CONSOLE_OAUTH_CLIENT_SECRET' | 'ONCEPORT_CONSOLE_OAUTH_SCOPE' | 'ONCEPORT_CONSOLE_OAUTH_RESOURCE'>;

/**
 * The console as an OAuth client of the operators' issuer (openid-client): authorization code with
 * PKCE (S256), state, and a nonce when OpenID Connect is asked for; the resource (RFC 8707) the
 * services accept. The issuer's metadata is discovered at the first sign-in, not at start: an issuer
 * that is down must not stop admin-key sign-ins.
 */
export class ConsoleOAuthClient {
  private config: Promise<oidc.Configuration> | null = null;

  constructor(private readonly settings: OAuthClientSettings) {}

  static newCodeVerifier(): string {
    return oidc.randomPKCECodeVerifier();
  }

  async authorizationUrl(transaction: SignInTransaction): Promise<string> {
    const config = await this.configuration();
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: this.settings.ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL,
        scope: this.settings.ONCEPORT_CONSOLE_OAUTH_SCOPE,
        code_challenge: await oidc.calculatePKCECodeChallenge(transaction.codeVerifier),
        code_challenge_method: 'S256',
        state: transaction.state,
        ...(this.openId ? { nonce: transaction.nonce } : {}),
        ...this.resource,
      })
      .toString();
  }

  /** The callback's code exchanged for tokens; the state, nonce and PKCE verifier checked. */
  async exchange(callbackUrl: URL, transaction: SignInTransaction): Promise<OperatorTokens> {
    const config = await this.configuration();
    const response = await this.asking(() =>
      oidc.authorizationCodeGrant(
        config,
        callbackUrl,
        {
          pkceCodeVerifier: transaction.codeVerifier,
          expectedState: transaction.state,
          ...(this.openId ? { expectedNonce: transaction.nonce, idTokenExpected: true } : {}),
        },
        this.resource,
      ),
    );
    return tokensOf(response);
  }

  async refresh(refreshToken: string): Promise<OperatorTokens> {
    const config = await this.configuration();
    const response = await this.asking(() => oidc.refreshTokenGrant(config, refreshToken, this.resource));
    return { ...tokensOf(response), refreshToken: response.refresh_token ?? refreshToken };
  }

  private get openId(): boolean {
    return this.settings.ONCEPORT_CONSOLE_OAUTH_SCOPE.split(' ').includes('openid');
  }

  private get resource(): Record<string, string> {
    const resource = this.settings.ONCEPORT_CONSOLE_OAUTH_RESOURCE;
    return resource ? { resource } : {};
  }

  private configuration(): Promise<oidc.Configuration> {
    this.config ??= this.discover().catch((error: unknown) => {
      this.config = null; // the next sign-in asks again
      throw error;
    });
    return this.config;
  }

  private async discover(): Promise<oidc.Configuration> {
    const issuer = new URL(this.settings.ONCEPORT_CONSOLE_OAUTH_ISSUER);
    const secret = this.settings.ONCEPORT_CONSOLE_OAUTH_CLIENT_SECRET;
    const auth = secret ? oidc.ClientSecretBasic(secret) : oidc.None();
    // http is accepted by the env check only on a loopback host (tests, a local issuer).
    const options = issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {};
    return this.asking(() => oidc.discovery(issuer, this.settings.ONCEPORT_CONSOLE_OAUTH_CLIENT_ID, undefined, auth, options));
  }

  /** The issuer's own words for a refusal (RFC 6749 §4.1.2.1, §5.2), or why it could not be asked. */
  private async asking<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new SignInFailed(describe(error, this.settings.ONCEPORT_CONSOLE_OAUTH_ISSUER));
    }
  }
}

function tokensOf(response: oidc.TokenEndpointResponse): OperatorTokens {
  return {
    accessToken: response.access_token,
    expiresAt: typeof response.expires_in === 'number' ? Date.now() + response.expires_in * 1000 : null,
    refreshToken: response.refresh_token ?? null,
  };
}

function describe(error: unknown, issuer: string): string {
  if (error instanceof oidc.AuthorizationResponseError || error instanceof oidc.ResponseBodyError) {
    return `${issuer} refused the sign-in: ${printable(error.error)}${error.error_description ? ` (${printable(error.error_description)})` : ''}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `the sign-in with ${issuer} did not complete: ${printable(message)}`;
}

/** Bounded, printable text: it ends up on the page and in the log. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '').slice(0, 300);
}
