/**
 * Intent claim streams this process saw claimed lately (it claimed them, or matched a call to one).
 * A call for one of them reads its claims instead of guessing the intent new: a storm's later callers
 * would each pay a failed insert for that guess. At most `capacity`, the least recently seen forgotten
 * first: forgetting one only costs its next call that failed insert.
 */
export class KnownClaims {
  private readonly seen = new Map<string, true>();

  constructor(private readonly capacity = 10_000) {}

  has(claimStreamId: string): boolean {
    return this.seen.has(claimStreamId);
  }

  add(claimStreamId: string): void {
    this.seen.delete(claimStreamId);
    this.seen.set(claimStreamId, true);
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value as string);
  }
}
