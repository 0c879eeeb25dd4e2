/**
 * The actors file intake was started with (`ActorDirectory`): admin routes hand it to the service
 * kit's `requireAdmin`, so intake checks admin keys (and operators' tokens) as every service does.
 */
export const ACTOR_DIRECTORY = Symbol('ACTOR_DIRECTORY');
