/**
 * Thrown for a trigger that arrives, or would need another try, while the process stops: the
 * consumer does not acknowledge it, so it is delivered again (to another replica or after the
 * restart) instead of being lost with the execution still waiting in `authorized`.
 */
export class DispatcherStoppingError extends Error {
  readonly code = 'dispatcher_stopping';
  override readonly name = 'DispatcherStoppingError';

  constructor(executionId: string | null) {
    super(`the dispatcher is stopping; ${executionId ? `execution ${executionId}` : 'the trigger'} will be dispatched after redelivery`);
  }
}
