import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The scheduler state letter of a pid from /proc (`R`, `S`, `T` stopped, `Z`...), or `null` when
 * there is no such process or no /proc.
 */
export function processState(pid: number): string | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // gone, or not Linux: callers treat "unknown" like "not there"
  }
  // The command name is in parentheses and may itself hold spaces or parentheses.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
}

/** Polls until the process is (or is no longer) stopped; SIGSTOP and SIGCONT are asynchronous. */
export async function waitForStopped(pid: number, stopped: boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = processState(pid);
    // Z / X: dead, only not reaped yet.
    if (state === null || state === 'Z' || state === 'X') return false;
    if ((state === 'T' || state === 't') === stopped) return true;
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
}
