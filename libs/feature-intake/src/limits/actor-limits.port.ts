import type { ActorLimits } from '@onceport/config';

/** Where intake learns an actor's limits: the actors file (`ActorDirectory`), or a test's own. */
export interface ActorLimitsSource {
  limitsOf(actorId: string): ActorLimits;
}
