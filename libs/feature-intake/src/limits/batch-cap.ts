/**
 * Why a JSON-RPC batch carries too many `tools/call`s, or null. Checked on the whole POST before
 * any message of it is handled: one request may not fan out into more executions than the bound.
 */
export function batchOverCap(body: unknown, maxCalls: number): string | null {
  if (!Array.isArray(body)) return null;
  const calls = body.filter(
    (message: unknown) => typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'tools/call',
  ).length;
  if (calls <= maxCalls) return null;
  return `a batch carries at most ${maxCalls} tools/call requests (ONCEPORT_MAX_BATCH_CALLS); this one has ${calls}: send them in smaller batches or one by one`;
}
