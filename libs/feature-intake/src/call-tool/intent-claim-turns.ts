/**
 * Identical calls that arrive together in one process take turns at their intent: while one of them
 * is deciding it (claiming it for a new execution, or matching one), the others wait for that to
 * commit or fail, then decide on what it wrote — they find the claim and attach, instead of each
 * racing a claim that must lose, roll back and run again (a storm of 1,000 did 999 doomed
 * transactions). Every call still decides for itself, and across replicas the store's version check
 * still settles a race: this only spares the losers' work, never replaces the check.
 */
export class IntentClaimTurns {
  private readonly deciding = new Map<string, Promise<unknown>>();

  /**
   * Runs `decide` for the intent claimed under `claimStreamId`, after the decision in flight for it
   * here, if any (`waited`: there was one, so the intent is likely claimed by now).
   */
  async take<T>(claimStreamId: string, decide: (waited: boolean) => Promise<T>): Promise<T> {
    const ahead = this.deciding.get(claimStreamId);
    if (ahead) {
      // Its outcome is read from the store by our own decision: a failure of its own is not ours.
      await ahead.catch(() => undefined);
      return decide(true);
    }
    const mine = decide(false);
    this.deciding.set(claimStreamId, mine);
    try {
      return await mine;
    } finally {
      this.deciding.delete(claimStreamId);
    }
  }

  /** Intents being decided now (for tests: nothing is left behind). */
  get inFlight(): number {
    return this.deciding.size;
  }
}
