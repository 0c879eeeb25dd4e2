/**
 * Events other services append to an execution that never change what a reconciler decided from:
 * a retry attaching to it, an answer delivered. They commute with a probe's record or a settlement,
 * so a reconciler is not fenced out by them — otherwise every agent retry during a probe threw the
 * probe's finding away and left the execution waiting a whole claim for the next pass.
 */
const COMMUTING_EVENTS: ReadonlySet<string> = new Set(['RetryAttached', 'ResultDelivered']);

/** Whether anything but commuting events was appended after `seenVersion` (stream versions count from 1). */
export function movedOnSince(events: readonly { readonly type: string }[], seenVersion: number): boolean {
  return events.slice(seenVersion).some((event) => !COMMUTING_EVENTS.has(event.type));
}
