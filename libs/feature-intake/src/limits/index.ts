export { type ActorLimitsSource } from './actor-limits.port';
export { IntakeLimits, InFlightCapReached } from './intake-limits';
export { ActorLimitError, RateLimitedError, TooManyInFlightError } from './limit-errors';
export { IntakeInFlightMigration } from './in-flight.migration';
