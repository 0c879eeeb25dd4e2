/**
 * The process's ports, each under its own token (`@Inject(COMMAND_HANDLER)`), made by
 * `ServiceKitModule`; a feature class asks for the ports it uses, never for all of them.
 * The event store is `EVENT_STORE` from `@onceport/event-store`; the log is `SERVICE_LOG`.
 */
export const PG_POOL = Symbol('ONCEPORT_PG_POOL');
export const COMMAND_HANDLER = Symbol('ONCEPORT_COMMAND_HANDLER');
export const EVENT_DELIVERY = Symbol('ONCEPORT_EVENT_DELIVERY');
export const RESULT_STORE = Symbol('ONCEPORT_RESULT_STORE');
export const TRACER = Symbol('ONCEPORT_TRACER');
/** The {@link ServiceConfig} the ports were made from (the database URL for a feature's ORM, the log level). */
export const SERVICE_CONFIG = Symbol('ONCEPORT_SERVICE_CONFIG');
