import type { JsonValue } from '@onceport/contracts';
import type { ToolContract } from '../tool-contracts/tool-contract.types';
import { type ArgumentSealer, SealedArgumentError, isSealedValue } from './sealed-value';

type Arguments = Readonly<Record<string, JsonValue>>;

/** What a redacted argument is shown as, wherever arguments are shown. */
export const REDACTED = '[redacted]';

/**
 * The arguments as they are stored: each one the contract marks `sensitive` sealed, bound to this
 * execution and argument name; the others unchanged.
 *
 * @example const stored = sealSensitiveArguments(contract, executionId, args, sealer);
 */
export function sealSensitiveArguments(
  contract: ToolContract,
  executionId: string,
  args: Arguments,
  sealer: Pick<ArgumentSealer, 'seal'>,
): Record<string, JsonValue> {
  const stored: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(args)) {
    stored[name] = contract.argumentSpecs[name]?.sensitive
      ? (sealer.seal(value, { executionId, argument: name }) as unknown as JsonValue)
      : value;
  }
  return stored;
}

export type OpenedArguments =
  { readonly ok: true; readonly arguments: Record<string, JsonValue> } | { readonly ok: false; readonly reason: string };

/**
 * The arguments to render a request from: sealed values opened. A sensitive argument stored in
 * clear (an execution accepted before sealing existed) is used as it is, so old executions still
 * dispatch. Every sealed value is opened, whatever the contract says now (a flag dropped since the
 * call must not send ciphertext to the target); the binding makes a value copied from elsewhere
 * refuse to open. A value that does not open is a reason, never a guess.
 */
export function openSealedArguments(executionId: string, stored: Arguments, sealer: Pick<ArgumentSealer, 'open'>): OpenedArguments {
  const opened: Record<string, JsonValue> = {};
  try {
    for (const [name, value] of Object.entries(stored)) {
      opened[name] = isSealedValue(value) ? sealer.open(value, { executionId, argument: name }) : value;
    }
  } catch (error) {
    if (error instanceof SealedArgumentError) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, arguments: opened };
}

/**
 * The arguments as a person or a log may see them: sensitive ones (sealed or, in old events, clear)
 * and any sealed value become `[redacted]`. Without the contract (a tool no longer loaded) nobody
 * can tell which were sensitive, so every value is redacted.
 */
export function redactSensitiveArguments(contract: ToolContract | undefined, args: Arguments): Record<string, JsonValue> {
  const shown: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(args)) {
    const hidden = contract === undefined || contract.argumentSpecs[name]?.sensitive === true || isSealedValue(value);
    shown[name] = hidden ? REDACTED : value;
  }
  return shown;
}
