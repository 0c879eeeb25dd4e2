import type { OAuthSettings } from '@onceport/config';
import {
  AccessTokenVerifier,
  type BearerError,
  type FetchJson,
  type JwksCacheOptions,
  type ServiceLog,
  issuerKeys,
} from '@onceport/service-kit';
import type { AuthenticatedActor } from '../../intake-dependencies';
import {
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
  resourceMetadataPaths,
  resourceMetadataUrl,
} from './protected-resource-metadata';
import { toolsOfScopes } from './tool-scope';

/** A token's verdict as HTTP will say it: the actor, or a status with the RFC 6750 challenge parts. */
export type TokenAuthentication =
  | { readonly ok: true; readonly actor: AuthenticatedActor }
  | {
      readonly ok: false;
      readonly status: 401 | 403 | 503;
      /** null: a refusal no RFC 6750 code describes (a valid token naming no actor; keys out of reach). */
      readonly error: BearerError | null;
      readonly description: string;
      /** The scopes that would have been enough (insufficient_scope). */
      readonly scope?: readonly string[];
    };

/** Intake as an OAuth 2.1 resource server: what the HTTP layer needs from it. */
export interface OAuthResourceServer {
  /** This server's resource identifier, as configured. */
  readonly resource: string;
  /** The absolute URL of the protected resource metadata, for `resource_metadata` in challenges. */
  readonly metadataUrl: string;
  /** The request paths that answer with the metadata. */
  readonly metadataPaths: readonly string[];
  metadata(): ProtectedResourceMetadata;
  /** A bearer token that is not an API key: verified, and mapped to an actor of the actors file. */
  authenticate(token: string): Promise<TokenAuthentication>;
}

export interface JwtResourceServerOptions {
  readonly fetchJson?: FetchJson;
  readonly jwks?: JwksCacheOptions;
  /** The verifier's clock (tests move it past a token's expiry). */
  readonly now?: () => Date;
  readonly log?: ServiceLog;
}

/**
 * Bearer JWTs from the actors file's authorization server: the signature by its JWKS (configured, or
 * discovered from its metadata), `iss`, `aud` = this resource, `exp`; then the required scopes, and
 * the actor the configured claim names (`oauth_subjects`). A token's `onceport:tool:*` scopes
 * narrow the actor's tools (tool-scope.ts).
 *
 * @example const oauth = new JwtResourceServer(directory.oauth, (s) => directory.actorForOAuthSubject(s)?.id ?? null, [...contracts.keys()]);
 */
export class JwtResourceServer implements OAuthResourceServer {
  readonly resource: string;
  readonly metadataUrl: string;
  readonly metadataPaths: readonly string[];
  private readonly document: ProtectedResourceMetadata;
  private readonly verifier: AccessTokenVerifier;
  private readonly log: ServiceLog;

  constructor(
    private readonly settings: OAuthSettings,
    /** The actor id a token subject names, or null. */
    private readonly actorOf: (subject: string) => string | null,
    toolNames: readonly string[],
    options: JwtResourceServerOptions = {},
  ) {
    const keys = issuerKeys(settings, {
      ...(options.fetchJson ? { fetchJson: options.fetchJson } : {}),
      ...(options.jwks ? { jwks: options.jwks } : {}),
    });
    const check = {
      issuer: settings.issuer,
      audience: settings.resource,
      claim: settings.actorClaim,
      clockToleranceSeconds: settings.clockToleranceSeconds,
    };
    this.verifier = new AccessTokenVerifier(check, keys, options.now);
    this.resource = settings.resource;
    this.metadataUrl = resourceMetadataUrl(settings.resource);
    this.metadataPaths = resourceMetadataPaths(settings.resource);
    this.document = protectedResourceMetadata(settings, toolNames);
    this.log = options.log ?? (() => undefined);
  }

  metadata(): ProtectedResourceMetadata {
    return this.document;
  }

  async authenticate(token: string): Promise<TokenAuthentication> {
    const verdict = await this.verifier.verify(token);
    if (!verdict.ok) {
      if (verdict.reason === 'unavailable') {
        this.log('warn', 'OAuth access tokens cannot be verified: the signing keys are out of reach', {
          issuer: this.settings.issuer,
          detail: verdict.detail,
        });
        return { ok: false, status: 503, error: null, description: verdict.description };
      }
      return { ok: false, status: 401, error: 'invalid_token', description: verdict.description };
    }
    const { subject, scopes } = verdict.claims;
    const missing = this.settings.requiredScopes.filter((scope) => !scopes.includes(scope));
    if (missing.length > 0) {
      return {
        ok: false,
        status: 403,
        error: 'insufficient_scope',
        description: `the token lacks the scope${missing.length === 1 ? '' : 's'} this server requires`,
        scope: this.settings.requiredScopes,
      };
    }
    const actor = this.actorOf(subject);
    if (actor === null) {
      return {
        ok: false,
        status: 403,
        error: null,
        description: `the token is valid, but its ${this.settings.actorClaim} ${JSON.stringify(subject)} names no actor of this server (an operator lists it under oauth_subjects of an actor)`,
      };
    }
    const tokenTools = toolsOfScopes(scopes);
    return { ok: true, actor: tokenTools ? { id: actor, tokenTools } : { id: actor } };
  }
}
