import { type IdempotencyKeyBound, type IntentClaimed } from '@onceport/contracts';
import { type Decider } from '../decider';
import { type CommandMetadata } from '../execution/execution-command';

export interface IntentClaim {
  readonly executionId: string;
  readonly claimedAt: string;
}

/** Claim an intent for a new execution. Always recorded: of two racing claims the append's expected version keeps one. */
export interface ClaimIntent {
  readonly type: 'ClaimIntent';
  readonly data: { readonly executionId: string };
  readonly metadata: CommandMetadata;
}

/** An intent stream folds to its claims, oldest first. */
export const intentClaimDecider: Decider<ClaimIntent, readonly IntentClaim[], IntentClaimed> = {
  decide: (command) => [
    { type: 'IntentClaimed', data: { executionId: command.data.executionId, claimedAt: command.metadata.now.toISOString() } },
  ],
  evolve: (claims, event) =>
    event.type === 'IntentClaimed' ? [...claims, { executionId: event.data.executionId, claimedAt: event.data.claimedAt }] : claims,
  initialState: () => [],
};

export interface KeyBinding {
  readonly executionId: string;
  readonly requestDigest: string;
}

/** Bind a client `Idempotency-Key` to an execution and a request digest. */
export interface BindIdempotencyKey {
  readonly type: 'BindIdempotencyKey';
  readonly data: KeyBinding;
  readonly metadata: CommandMetadata;
}

/** A key is bound once: the first binding stands, a second one records nothing. */
export const idempotencyKeyDecider: Decider<BindIdempotencyKey, KeyBinding | null, IdempotencyKeyBound> = {
  decide: (command, state) =>
    state ? [] : [{ type: 'IdempotencyKeyBound', data: { ...command.data, boundAt: command.metadata.now.toISOString() } }],
  evolve: (state, event) => state ?? { executionId: event.data.executionId, requestDigest: event.data.requestDigest },
  initialState: () => null,
};
