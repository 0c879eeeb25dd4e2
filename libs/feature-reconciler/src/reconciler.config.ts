import { hostname } from 'node:os';
import { actorKeysFile, actorsFile, encryptionKeys } from '@onceport/config';
import { credentialsEnvShape } from '@onceport/target-channels';
import { z } from 'zod';

/** The reconciler's own environment, validated at start with the runtime's. */
export const reconcilerEnvShape = {
  ONCEPORT_ACTORS_FILE: actorsFile,
  ONCEPORT_ACTOR_KEYS_FILE: actorKeysFile,
  /** Opens sealed sensitive arguments when a probe renders them; the same ring as intake's. */
  ONCEPORT_ENCRYPTION_KEYS: encryptionKeys,
  /** Probes read their credentials as the dispatcher does (`ONCEPORT_CREDENTIAL_<REF>`, this directory). */
  ...credentialsEnvShape,
  ONCEPORT_RECONCILE_SWEEP_MS: z.coerce.number().int().min(100).max(600_000).default(2_000),
  ONCEPORT_REDELIVER_AFTER_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(15_000),
  ONCEPORT_PROBE_MAX: z.coerce.number().int().min(1).max(100).default(5),
  ONCEPORT_PROBE_BACKOFF_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  ONCEPORT_PROBE_BACKOFF_MAX_MS: z.coerce.number().int().min(10).max(3_600_000).default(60_000),
  ONCEPORT_DISPATCH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(3),
  /** Unsettled executions one replica settles at once (each may wait on a probe). */
  ONCEPORT_RECONCILE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  /** How long a replica's claim on an execution keeps the others off it; longer than one settle takes. */
  ONCEPORT_RECONCILE_CLAIM_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  ONCEPORT_RECONCILER_ID: z.string().min(1).default(`${hostname()}-${process.pid}`),
};
export type ReconcilerEnv = z.output<z.ZodObject<typeof reconcilerEnvShape>>;
