export {
  type ArgumentSealer,
  type SealBinding,
  type SealedArgumentErrorCode,
  type SealedValue,
  SealedArgumentError,
  isSealedValue,
} from './sealed-value';
export {
  type OpenedArguments,
  REDACTED,
  openSealedArguments,
  redactSensitiveArguments,
  sealSensitiveArguments,
} from './sensitive-arguments';
