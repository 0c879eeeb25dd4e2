export {
  type BindIdempotencyKey,
  type ClaimIntent,
  type IntentClaim,
  type KeyBinding,
  idempotencyKeyDecider,
  intentClaimDecider,
} from './intake-deciders';
