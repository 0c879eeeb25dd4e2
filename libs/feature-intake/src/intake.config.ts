import { actorKeysFile, actorsFile, encryptionKeys, hmacKeys } from '@onceport/config';
import { z } from 'zod';

/** Intake's own environment, validated at start with the runtime's. */
export const intakeEnvShape = {
  ONCEPORT_HMAC_KEYS: hmacKeys,
  /** Seals `sensitive` arguments before they are stored (AES-256-GCM; first key active). */
  ONCEPORT_ENCRYPTION_KEYS: encryptionKeys,
  ONCEPORT_ACTORS_FILE: actorsFile,
  ONCEPORT_ACTOR_KEYS_FILE: actorKeysFile,
  ONCEPORT_ANSWER_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  ONCEPORT_MAX_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** On SIGTERM, calls waiting for an outcome wait at most this long, then answer with their state. */
  ONCEPORT_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  ONCEPORT_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
};
export type IntakeEnv = z.output<z.ZodObject<typeof intakeEnvShape>>;
