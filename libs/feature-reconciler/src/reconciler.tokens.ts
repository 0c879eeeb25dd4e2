export const SETTLE_HANDLER = Symbol('SETTLE_HANDLER');
export const SWEEPER = Symbol('SWEEPER');
export const ADMINS = Symbol('ADMINS');
export const RECONCILER_ORM = Symbol('RECONCILER_ORM');
