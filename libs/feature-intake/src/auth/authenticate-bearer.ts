import type { IncomingMessage } from 'node:http';
import { bearerToken } from '@onceport/config';
import type { AuthenticatedActor, IntakeDependencies } from '../intake-dependencies';
import { bearerChallenge, looksLikeJwt } from '@onceport/service-kit';
import type { OAuthResourceServer, TokenAuthentication } from './oauth/oauth-resource-server';
import { toolScope } from './oauth/tool-scope';

/** Why a request's credential is refused, in the words HTTP, problem details and JSON-RPC need. */
export interface BearerRefusal {
  readonly status: 401 | 403 | 503;
  /** The `WWW-Authenticate` value (RFC 6750 §3, with RFC 9728's `resource_metadata`), or null. */
  readonly challenge: string | null;
  /** Problem details code (kebab-case) and title. */
  readonly code: string;
  readonly title: string;
  /** A sentence the caller can act on; never the token. */
  readonly message: string;
}

export type BearerAuthentication = { readonly ok: true; readonly actor: AuthenticatedActor } | ({ readonly ok: false } & BearerRefusal);

type Credentials = Pick<IntakeDependencies, 'actors' | 'oauth'>;

/** Seconds a 503 asks the client to wait: about the key fetch cooldown. */
const KEYS_RETRY_AFTER_S = 30;

/**
 * Who is calling, from `Authorization: Bearer …`: an API key of the actors file first (hashed and
 * compared in constant time), else — when the actors file has an `oauth:` section — an OAuth access
 * token (a JWT of the configured issuer for this resource, whose claim names an actor). Without an
 * `oauth:` section this answers exactly as API-key-only intake always did.
 *
 * @example const auth = await authenticateBearer(deps, req); if (!auth.ok) return refuse(auth.status, refusalHeaders(auth), auth.message);
 */
export async function authenticateBearer(deps: Credentials, req: IncomingMessage): Promise<BearerAuthentication> {
  const token = bearerToken(req.headers.authorization);
  const keyActor = token ? deps.actors.authenticate(token) : null;
  if (keyActor) return { ok: true, actor: keyActor };
  const oauth = deps.oauth;
  if (!oauth) return refused(API_KEY_ONLY);
  if (!token) {
    // RFC 6750 §3.1: a request without credentials gets no error code, just where to get some.
    return refused(unauthorized(oauth, null, `send Authorization: Bearer <an Onceport API key, or an access token ${whereFrom(oauth)}>`));
  }
  if (!looksLikeJwt(token)) {
    return refused(unauthorized(oauth, 'the token is neither an API key of this server nor a signed JWT access token', null));
  }
  const verdict = await oauth.authenticate(token);
  return verdict.ok ? verdict : refused(tokenRefusal(oauth, verdict));
}

/**
 * The 403 for a call to tools a narrowed token does not cover (see oauth/tool-scope.ts). The
 * challenge names the scopes that would have been enough, as the MCP authorization spec asks.
 */
export function toolScopeRefusal(deps: Credentials, tools: readonly string[]): BearerRefusal {
  const names = tools.map((tool) => JSON.stringify(tool.slice(0, 128))).join(', ');
  const scope = tools.map(toolScope);
  const description = `this access token is limited to other tools than ${names}`;
  return {
    status: 403,
    challenge: deps.oauth
      ? bearerChallenge({ resourceMetadata: deps.oauth.metadataUrl, error: 'insufficient_scope', description, scope })
      : null,
    code: 'insufficient-scope',
    title: 'The access token does not cover this tool',
    message: `${description}: call with a token carrying ${scope.join(' ')} (or no onceport:tool: scopes at all)`,
  };
}

/** The headers a refusal is sent with: its challenge, and when to come back after a 503. */
export function refusalHeaders(refusal: BearerRefusal): Record<string, string> {
  return {
    ...(refusal.challenge ? { 'WWW-Authenticate': refusal.challenge } : {}),
    ...(refusal.status === 503 ? { 'Retry-After': String(KEYS_RETRY_AFTER_S) } : {}),
  };
}

/**
 * The challenge of any other 401 intake sends (a claim naming another actor, an execution of
 * another actor): with OAuth, where the metadata is; without, nothing new (as before).
 */
export function otherUnauthorizedHeaders(deps: Credentials): Record<string, string> {
  return deps.oauth ? { 'WWW-Authenticate': bearerChallenge({ resourceMetadata: deps.oauth.metadataUrl }) } : {};
}

const API_KEY_ONLY: BearerRefusal = {
  status: 401,
  challenge: bearerChallenge(),
  code: 'unauthorized',
  title: 'Unauthorized',
  message: 'send Authorization: Bearer <your Onceport API key>',
};

function unauthorized(oauth: OAuthResourceServer, invalidToken: string | null, message: string | null): BearerRefusal {
  return {
    status: 401,
    challenge: bearerChallenge({
      resourceMetadata: oauth.metadataUrl,
      ...(invalidToken ? { error: 'invalid_token' as const, description: invalidToken } : {}),
    }),
    code: invalidToken ? 'invalid-token' : 'unauthorized',
    title: invalidToken ? 'Invalid access token' : 'Unauthorized',
    message: message ?? `${invalidToken}: send an Onceport API key, or a fresh access token ${whereFrom(oauth)}`,
  };
}

function tokenRefusal(oauth: OAuthResourceServer, verdict: Extract<TokenAuthentication, { ok: false }>): BearerRefusal {
  if (verdict.status === 401) return unauthorized(oauth, verdict.description, null);
  if (verdict.status === 503) {
    return {
      status: 503,
      challenge: null,
      code: 'token-verification-unavailable',
      title: 'Access tokens cannot be verified right now',
      message: verdict.description,
    };
  }
  const scoped = verdict.error === 'insufficient_scope';
  return {
    status: 403,
    challenge: bearerChallenge({
      resourceMetadata: oauth.metadataUrl,
      ...(verdict.error ? { error: verdict.error } : {}),
      description: verdict.description,
      ...(verdict.scope ? { scope: verdict.scope } : {}),
    }),
    code: scoped ? 'insufficient-scope' : 'unknown-oauth-subject',
    title: scoped ? 'The access token lacks a required scope' : 'No actor for this access token',
    message: scoped ? `${verdict.description}: ${verdict.scope?.join(' ') ?? ''}` : verdict.description,
  };
}

function whereFrom(oauth: OAuthResourceServer): string {
  return `for ${oauth.resource} (its authorization server is named at ${oauth.metadataUrl})`;
}

function refused(refusal: BearerRefusal): BearerAuthentication {
  return { ok: false, ...refusal };
}
