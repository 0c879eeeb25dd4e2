export const SETTLE_HANDLER = Symbol('SETTLE_HANDLER');
export const SWEEPER = Symbol('SWEEPER');
export const ADMINS = Symbol('ADMINS');
export const RECONCILER_ORM = Symbol('RECONCILER_ORM');
/** Tool contracts by name, loaded at start. */
export const RECONCILER_CONTRACTS = Symbol('RECONCILER_CONTRACTS');
/** The HTTP and SSH channels and the credential resolution the probes use. */
export const RECONCILER_CHANNELS = Symbol('RECONCILER_CHANNELS');
