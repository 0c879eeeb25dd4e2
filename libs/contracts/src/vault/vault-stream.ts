/**
 * The one stream holding every vault lock and unlock. Its last event is the vault's state; the
 * authorization service reads it from the store on every decision (it is not relayed to JetStream).
 */
export const VAULT_STREAM_ID = 'vault';

export const VAULT_SUBJECT_PREFIX = 'onceport.vault';
