import { ActorDirectory, actorKeysFile, actorsFile, loadToolContracts } from '@onceport/config';
import { z } from 'zod';
import { type AuthorizationOptions } from './authorization.options';
import { type Log, jsonLog } from './shared/log';

const DAY_MS = 24 * 60 * 60_000;

/** The authorization service's own variables; bootstrapService validates them with the runtime's. */
export const authorizationEnvShape = {
  ONCEPORT_ACTORS_FILE: actorsFile,
  ONCEPORT_ACTOR_KEYS_FILE: actorKeysFile,
  ONCEPORT_APPROVAL_TTL: z.coerce
    .number({ error: 'how long a requested approval stays open, in milliseconds (900000 = 15 minutes)' })
    .int({ error: 'a whole number of milliseconds' })
    .min(1_000, { error: 'at least 1000 ms' })
    .max(30 * DAY_MS, { error: 'at most 30 days in milliseconds' })
    .default(15 * 60_000),
  ONCEPORT_APPROVAL_SWEEP_MS: z.coerce
    .number({ error: 'how often lapsed approvals are ended as approval_expired, in milliseconds' })
    .int({ error: 'a whole number of milliseconds' })
    .min(100, { error: 'at least 100 ms' })
    .max(10 * 60_000, { error: 'at most 10 minutes in milliseconds' })
    .default(5_000),
};

export type AuthorizationEnv = z.output<z.ZodObject<typeof authorizationEnvShape>>;

/**
 * Reads the actors file (and its keys file, if given) and the tool contracts once. Throws `ActorsFileError` or
 * `ToolContractError` naming the file, the field and what is expected.
 */
export async function loadAuthorizationOptions(
  env: AuthorizationEnv,
  contractsDir: string,
  log: Log = jsonLog('authorization'),
): Promise<AuthorizationOptions> {
  const [directory, contracts] = await Promise.all([
    ActorDirectory.load(env.ONCEPORT_ACTORS_FILE, env.ONCEPORT_ACTOR_KEYS_FILE),
    loadToolContracts(contractsDir),
  ]);
  return {
    directory,
    contracts: contracts.byName,
    approvalTtlMs: env.ONCEPORT_APPROVAL_TTL,
    approvalSweepMs: env.ONCEPORT_APPROVAL_SWEEP_MS,
    log,
  };
}
