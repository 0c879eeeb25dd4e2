/**
 * The one `faultPoint` implementation lives in `@onceport/fault-points` (services call it); the kit
 * re-exports it. Armed with `ONCEPORT_FAULT_POINT=<name>`, it writes
 * `{"fault_point":"<name>","pid":<pid>}` to stderr, then SIGKILLs its process — or SIGSTOPs it with
 * `ONCEPORT_FAULT_ACTION=stop`, so a harness watching the output (see `atNamedPoint`) can kill it
 * exactly there, or SIGCONT it and let it carry on late.
 */
export { FAULT_ACTION_ENV, FAULT_POINT_ENV, type FaultAction, faultPoint } from '@onceport/fault-points';
