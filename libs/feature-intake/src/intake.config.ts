import { EnvConfigError, actorKeysFile, actorsFile, encryptionKeys, hmacKeys } from '@onceport/config';
import { listenHost } from '@onceport/service-kit';
import { z } from 'zod';
import { DEFAULT_MAX_ARGUMENT_BYTES } from './input-bounds';
import { hostOriginEnvShape } from './mcp/host-origin-env';

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
  /** A JSON-RPC batch POST carries at most this many tools/call requests, or it is refused whole. */
  ONCEPORT_MAX_BATCH_CALLS: z.coerce.number().int().min(1).max(1_000).default(10),
  ONCEPORT_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** A call's serialized `arguments` above this are refused (-32602 / 422); must stay below ONCEPORT_MAX_BODY_BYTES. */
  ONCEPORT_MAX_ARGUMENT_BYTES: z.coerce
    .number()
    .int()
    .min(256)
    .max(64 * 1024 * 1024)
    .default(DEFAULT_MAX_ARGUMENT_BYTES),
  /** The bind address decides the default Host/Origin allow-lists of /mcp (loopback → loopback names only). */
  HOST: listenHost,
  ...hostOriginEnvShape,
  /** An MCP session unused this long is over: its id answers 404 and the client initializes again. */
  ONCEPORT_MCP_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(30 * 86_400_000)
    .default(86_400_000),
  /** Resumed GET streams (`Last-Event-ID`) one actor may hold open at once on one intake process. */
  ONCEPORT_MCP_RESUMED_STREAMS_PER_ACTOR: z.coerce.number().int().min(1).max(10_000).default(16),
  /** A REST agent process id issued and never used this long is deleted. */
  ONCEPORT_AGENT_PROCESS_UNUSED_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(30 * 86_400_000)
    .default(86_400_000),
  /** How often ended and expired sessions, their stream events and unused agent process ids are pruned. */
  ONCEPORT_PRUNE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(600_000),
};
export type IntakeEnv = z.output<z.ZodObject<typeof intakeEnvShape>>;

/** The argument ceiling must leave room for the envelope inside the body limit; the message names both variables. */
export function checkIntakeEnv(env: IntakeEnv): void {
  if (env.ONCEPORT_MAX_ARGUMENT_BYTES >= env.ONCEPORT_MAX_BODY_BYTES) {
    const expected = `a number of bytes below ONCEPORT_MAX_BODY_BYTES (${env.ONCEPORT_MAX_BODY_BYTES})`;
    throw new EnvConfigError([
      {
        variable: 'ONCEPORT_MAX_ARGUMENT_BYTES',
        found: 'invalid',
        expected,
        message: `ONCEPORT_MAX_ARGUMENT_BYTES: ${env.ONCEPORT_MAX_ARGUMENT_BYTES}; expected ${expected}`,
      },
    ]);
  }
}
