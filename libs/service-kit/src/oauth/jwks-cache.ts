import { type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters, type KeyLike, createLocalJWKSet, errors } from 'jose';
import { OAuthFetchError } from './bounded-json-fetch';
import type { FetchJson } from './issuer-metadata';

/** The issuer's keys cannot be had right now: a server-side condition (503), never the caller's token's fault. */
export class SigningKeysUnavailableError extends Error {
  override readonly name = 'SigningKeysUnavailableError';
}

export interface JwksCacheOptions {
  /** Keys older than this are fetched again before use (a rotation is picked up). */
  readonly maxAgeMs: number;
  /**
   * The least time between two fetches: a token naming an unknown `kid` fetches again at most this
   * often, and a failed fetch is not retried sooner — so a flood of forged tokens, or an issuer that
   * is down, costs the issuer one request per cooldown, not one per call.
   */
  readonly cooldownMs: number;
  readonly now?: () => number;
}

export const JWKS_CACHE_DEFAULTS: JwksCacheOptions = { maxAgeMs: 10 * 60_000, cooldownMs: 30_000 };

/** At most this many keys are taken from a set: a real issuer publishes a handful. */
const MAX_KEYS = 100;

type LocalKeys = ReturnType<typeof createLocalJWKSet>;

/**
 * The issuer's signing keys (JWKS), fetched on first use, cached, and fetched again when too old or
 * when a token names a key not in the set (a rotation). One fetch at a time. When a fetch fails and
 * older keys are at hand, they stay in use: an issuer outage must not lock every agent out.
 *
 * @example const keys = new JwksCache(() => discoverJwksUri(issuer, fetchJson), fetchJson); await jwtVerify(token, keys.getKey, …);
 */
export class JwksCache {
  private uri: string | null = null;
  private local: LocalKeys | null = null;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  private lastFailure = '';
  private pending: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(
    /** Where the set lives: the configured jwks_uri, or discovered from the issuer's metadata. */
    private readonly resolveUri: () => Promise<string>,
    private readonly fetchJson: FetchJson,
    private readonly options: JwksCacheOptions = JWKS_CACHE_DEFAULTS,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** For jose's `jwtVerify`: the key the token's header names, or jose's JWKSNoMatchingKey. */
  readonly getKey = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<KeyLike> => {
    if (!this.local || this.age() >= this.options.maxAgeMs) await this.refresh();
    try {
      return await this.keys()(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || this.age() < this.options.cooldownMs) throw error;
      await this.refresh();
      return this.keys()(header, token);
    }
  };

  private keys(): LocalKeys {
    if (!this.local) throw new SigningKeysUnavailableError(this.lastFailure || 'the signing keys were never fetched');
    return this.local;
  }

  private age(): number {
    return this.now() - this.fetchedAt;
  }

  /** Fetches unless a fetch is under way or failed within the cooldown; keeps older keys if it fails. */
  private async refresh(): Promise<void> {
    if (!this.pending && this.now() - this.failedAt >= this.options.cooldownMs) {
      this.pending = this.fetchKeys().finally(() => (this.pending = null));
    }
    if (this.pending) await this.pending;
  }

  private async fetchKeys(): Promise<void> {
    try {
      this.uri ??= await this.resolveUri();
      this.local = createLocalJWKSet(keySetIn(await this.fetchJson(this.uri), this.uri));
      this.fetchedAt = this.now();
    } catch (error) {
      if (!(error instanceof OAuthFetchError) && !(error instanceof errors.JOSEError)) throw error;
      this.failedAt = this.now();
      this.lastFailure = error.message;
      // Without older keys nothing can be verified: say why; with them, carry on (see the class comment).
      if (!this.local) throw new SigningKeysUnavailableError(error.message);
    }
  }
}

function keySetIn(document: unknown, uri: string): JSONWebKeySet {
  const keys = typeof document === 'object' && document !== null ? (document as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) throw new OAuthFetchError(`${uri} is not a JSON Web Key Set (no keys list)`);
  if (keys.length > MAX_KEYS) throw new OAuthFetchError(`${uri} lists ${keys.length} keys, more than the ${MAX_KEYS} accepted`);
  return document as JSONWebKeySet;
}
