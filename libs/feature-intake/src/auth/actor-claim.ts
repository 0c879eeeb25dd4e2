import type { IncomingMessage } from 'node:http';
import type { AuthenticatedActor } from '../intake-dependencies';

/** Headers a client may use to say who it acts for. Intake never takes the actor from them. */
export const ACTOR_CLAIM_HEADERS = ['onceport-actor', 'x-onceport-actor'] as const;
/** The `_meta` key an MCP request may carry an actor claim in. */
export const ACTOR_CLAIM_META = 'onceport/actor';

export interface ActorClaim {
  /** Where the claim was made, for the error message (e.g. `header Onceport-Actor`). */
  readonly where: string;
  readonly value: unknown;
}

export interface ActorMismatch {
  readonly where: string;
  readonly detail: string;
}

/** The actor claims a request makes in headers. */
export function headerActorClaims(req: IncomingMessage): ActorClaim[] {
  return ACTOR_CLAIM_HEADERS.flatMap((name) =>
    req.headers[name] === undefined ? [] : [{ where: `header ${name}`, value: req.headers[name] }],
  );
}

/**
 * The first claim that names another actor than the API key proves, or null. The actor in the
 * fingerprint is always the authenticated one; a claim that disagrees is a client acting for someone
 * its key does not belong to, so the request is refused before anything is recorded.
 */
export function actorClaimMismatch(actor: AuthenticatedActor, claims: readonly ActorClaim[]): ActorMismatch | null {
  const wrong = claims.find((claim) => claim.value !== actor.id);
  if (!wrong) return null;
  const claimed = typeof wrong.value === 'string' ? JSON.stringify(wrong.value.slice(0, 200)) : 'a non-string value';
  return {
    where: wrong.where,
    detail: `the ${wrong.where} claims actor ${claimed}, but this API key belongs to ${JSON.stringify(actor.id)}. The actor is always the one the API key proves: drop the claim, or call with that actor's own key.`,
  };
}
