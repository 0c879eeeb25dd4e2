/**
 * What one actor may put on the gateway (issue #12): a token-bucket rate of tool calls and a cap on
 * its executions in flight (accepted and not yet settled). Set per actor in the actors file, with a
 * file-wide `defaults:` block; what neither says comes from {@link BUILT_IN_ACTOR_LIMITS}.
 */
export interface ActorLimits {
  /** Tokens added to the actor's bucket per second: the sustained rate of tool calls. */
  readonly ratePerSecond: number;
  /** The bucket's size: how many calls may arrive at once after a quiet spell. */
  readonly burst: number;
  /** How many of the actor's executions may be accepted and not yet settled at once. */
  readonly maxInFlight: number;
}

/**
 * Far above what an agent working for a person does (a few calls a second, a handful in flight),
 * low enough that one leaked key cannot fill the store: the 2,000 calls in 17 s of issue #12 get
 * 200 at once and 20 a second after that. A fan-out or a load test raises them in its actors file.
 */
export const BUILT_IN_ACTOR_LIMITS: ActorLimits = { ratePerSecond: 20, burst: 200, maxInFlight: 100 };

/** Each actor's limits, resolved field by field: the actor's own, else the file's defaults, else built-in. */
export interface ActorLimitsTable {
  /** The file's defaults over the built-in ones: what an actor without its own `limits:` gets. */
  readonly defaults: ActorLimits;
  readonly byActor: ReadonlyMap<string, ActorLimits>;
}

/** The actors file's spelling of a limits block; every field optional. */
export interface RawLimits {
  readonly rate_per_second?: number | undefined;
  readonly burst?: number | undefined;
  readonly max_in_flight?: number | undefined;
}

export function resolveLimits(raw: RawLimits | undefined, base: ActorLimits): ActorLimits {
  return {
    ratePerSecond: raw?.rate_per_second ?? base.ratePerSecond,
    burst: raw?.burst ?? base.burst,
    maxInFlight: raw?.max_in_flight ?? base.maxInFlight,
  };
}
