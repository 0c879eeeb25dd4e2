import { randomBytes } from 'node:crypto';

/** A sign-in under way at the issuer: what the callback must match (state, nonce) and prove (the PKCE verifier). */
export interface SignInTransaction {
  readonly id: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly startedAt: number;
  /** Set when the sign-in failed: the page shows it once. */
  error: string | null;
}

const MAX_PENDING = 1_000;
/** Long enough to type a password and pass a second factor; a callback later than this starts over. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
const ID = /^[A-Za-z0-9_-]{43}$/;

const random = (): string => randomBytes(32).toString('base64url');

/**
 * Sign-ins started and not yet finished, in this process's memory (like the sessions). The browser
 * holds only the transaction's id, in a cookie; the verifier never leaves the server. Bounded: past
 * the cap the oldest goes, and each lapses after {@link SIGN_IN_TTL_MS}.
 */
export class SignInTransactions {
  private readonly pending = new Map<string, SignInTransaction>();

  constructor(private readonly now: () => number = Date.now) {}

  start(codeVerifier: string): SignInTransaction {
    this.sweep();
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    const transaction: SignInTransaction = {
      id: random(),
      state: random(),
      nonce: random(),
      codeVerifier,
      startedAt: this.now(),
      error: null,
    };
    this.pending.set(transaction.id, transaction);
    return transaction;
  }

  /** The live transaction with this id, or null (unknown, malformed or lapsed). */
  find(id: string | undefined): SignInTransaction | null {
    if (!id || !ID.test(id)) return null;
    const transaction = this.pending.get(id);
    if (!transaction) return null;
    if (this.now() - transaction.startedAt > SIGN_IN_TTL_MS) {
      this.pending.delete(id);
      return null;
    }
    return transaction;
  }

  /** Keeps only the failure for the page to show (the state and verifier are spent). */
  fail(transaction: SignInTransaction, error: string): void {
    transaction.error = error.slice(0, 500);
  }

  /** The failure to show, once; the transaction is gone afterwards. */
  takeError(id: string | undefined): string | null {
    const transaction = this.find(id);
    if (!transaction || transaction.error === null) return null;
    this.pending.delete(transaction.id);
    return transaction.error;
  }

  finish(id: string): void {
    this.pending.delete(id);
  }

  get size(): number {
    return this.pending.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, transaction] of this.pending) if (now - transaction.startedAt > SIGN_IN_TTL_MS) this.pending.delete(id);
  }
}
