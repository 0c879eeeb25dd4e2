import { ActorDirectory, loadEnvConfig, loadToolContracts } from '@onceport/config';
import { authorizationEnvShape } from '@onceport/feature-authorization';
import { dispatcherEnvShape } from '@onceport/feature-dispatcher';
import { intakeEnvShape } from '@onceport/feature-intake';
import { reconcilerEnvShape } from '@onceport/feature-reconciler';
import { runtimeEnvShape } from '@onceport/service-kit';
import { z } from 'zod';
import { readableByOthers } from './data-dir';
import { DEMO_CREDENTIALS, demoSecrets, writeDemoActors, writeDemoContracts } from './demo-setup';

/** `npm start`'s own variables; the features' variables are validated with `featureEnv`. */
export const embeddedEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Default: the user's state directory (see data-dir.ts). */
  ONCEPORT_DATA_DIR: z.string().optional(),
  ONCEPORT_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  ONCEPORT_DEMO_TARGET_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  /** The web console, its own process beside the gateway. */
  ONCEPORT_CONSOLE_PORT: z.coerce.number().int().min(0).max(65535).default(3005),
  /** Given: the user's own tools, and no demo target. */
  ONCEPORT_CONTRACTS_DIR: z.string().optional(),
  /** Given: the user's own actors (and ONCEPORT_ACTOR_KEYS_FILE), and no generated keys. */
  ONCEPORT_ACTORS_FILE: z.string().optional(),
});
export type EmbeddedSettings = z.output<typeof embeddedEnv>;

/** What this start serves, and whose it is: the banner says which. */
export interface EmbeddedSetup {
  readonly contracts: { readonly kind: 'own' | 'demo'; readonly dir: string };
  readonly actors:
    | { readonly kind: 'own'; readonly file: string }
    | { readonly kind: 'demo'; readonly file: string; readonly agentKey: string; readonly adminKey: string };
  readonly hmacKeys: 'own' | 'generated';
  /** The environment the features read credentials from (never written into process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `env` parsed: the kit's and every feature's variables (DATABASE_URL is a placeholder until PostgreSQL runs). */
  readonly config: EmbeddedServiceEnv;
}

/** Where `npm start` listens: one machine's first day, never the network. */
export const EMBEDDED_HOST = '127.0.0.1';

/** The kit's and the four features' variables in one schema, parsed once: a start reports every bad variable at once. */
const embeddedServiceEnv = z.object({
  ...runtimeEnvShape,
  ...intakeEnvShape,
  ...authorizationEnvShape,
  ...dispatcherEnvShape,
  ...reconcilerEnvShape,
});
export type EmbeddedServiceEnv = z.output<typeof embeddedServiceEnv>;

/**
 * The user's contracts and actors when given, the demo's for whatever is not (demo contracts need
 * `demoTargetUrl`); HMAC and encryption keys from ONCEPORT_HMAC_KEYS / ONCEPORT_ENCRYPTION_KEYS or
 * generated and kept in the data dir.
 * Everything is validated here, before PostgreSQL starts, so a broken file stops the start at once.
 */
export async function prepareSetup(
  settings: EmbeddedSettings,
  dataDir: string,
  processEnv: NodeJS.ProcessEnv,
  demoTargetUrl: string | null,
  warn: (line: string) => void,
): Promise<EmbeddedSetup> {
  const secrets = demoSecrets(dataDir);
  const ownContracts = settings.ONCEPORT_CONTRACTS_DIR;
  const contractsDir = ownContracts ?? writeDemoContracts(dataDir, demoTargetUrl ?? 'http://demo-target');
  const ownActors = settings.ONCEPORT_ACTORS_FILE;
  const actorsFile = ownActors ?? writeDemoActors(dataDir, secrets);
  const keysFile = ownActors ? processEnv['ONCEPORT_ACTOR_KEYS_FILE'] || undefined : undefined;
  const ownHmac = Boolean(processEnv['ONCEPORT_HMAC_KEYS']?.trim());
  const ownEncryption = Boolean(processEnv['ONCEPORT_ENCRYPTION_KEYS']?.trim());
  const env: Record<string, string | undefined> = {
    ...(ownContracts ? {} : DEMO_CREDENTIALS),
    ...processEnv,
    ONCEPORT_DELIVERY: 'in_process',
    // The embedded start listens on loopback only: intake's Host/Origin defaults must follow that.
    HOST: EMBEDDED_HOST,
    ONCEPORT_CONTRACTS_DIR: contractsDir,
    ONCEPORT_ACTORS_FILE: actorsFile,
    ONCEPORT_ACTOR_KEYS_FILE: keysFile,
    ONCEPORT_HMAC_KEYS: ownHmac ? processEnv['ONCEPORT_HMAC_KEYS'] : secrets.hmacKeys,
    ONCEPORT_ENCRYPTION_KEYS: ownEncryption ? processEnv['ONCEPORT_ENCRYPTION_KEYS'] : secrets.encryptionKeys,
  };
  // DATABASE_URL is the embedded PostgreSQL's, known once it runs: a placeholder until then.
  const config = loadEnvConfig(embeddedServiceEnv, { ...env, DATABASE_URL: 'postgres://127.0.0.1/onceport' });
  await loadToolContracts(contractsDir);
  await ActorDirectory.load(actorsFile, keysFile);
  for (const file of [ownActors, keysFile]) {
    if (file && readableByOthers(file))
      warn(`onceport: warning: ${file} holds key hashes and is readable by other users; chmod 600 ${file}`);
  }
  return {
    contracts: { kind: ownContracts ? 'own' : 'demo', dir: contractsDir },
    actors: ownActors
      ? { kind: 'own', file: ownActors }
      : { kind: 'demo', file: actorsFile, agentKey: secrets.agentKey, adminKey: secrets.adminKey },
    hmacKeys: ownHmac ? 'own' : 'generated',
    env,
    config,
  };
}
