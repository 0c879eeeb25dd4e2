import { type EventDefinition } from '../events/event-definition';
import { kebabEventName } from '../events/subjects';

/**
 * Moves a definition out of `onceport.execution.…` into its own subject space, e.g.
 * `onceport.vault.vault-locked.v1`. Events outside execution streams are not relayed to JetStream
 * today; naming their subjects now keeps the door open without squatting on the execution space,
 * whose stream captures `onceport.execution.>`.
 *
 * @example export const VaultLockedEvent = inSubjectSpace(defineEvent('VaultLocked', 1, VaultLockedData), 'onceport.vault');
 */
export function inSubjectSpace<Type extends string, Data>(
  definition: EventDefinition<Type, Data>,
  prefix: string,
): EventDefinition<Type, Data> {
  const name = kebabEventName(definition.type);
  return { ...definition, subject: `${prefix}.${name}.v${definition.schemaVersion}`, subjectWildcard: `${prefix}.${name}.*` };
}
