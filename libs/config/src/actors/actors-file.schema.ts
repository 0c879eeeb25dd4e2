import { TOOL_NAME_PATTERN } from '@onceport/domain';
import { z } from 'zod';
import { OAuthAdminSubjects, OAuthSubjects, RawOAuth } from './oauth-section.schema';

// The raw YAML shape of ONCEPORT_ACTORS_FILE. Every field carries its own "expected" text: those
// are what operators read.
//
//   actors:
//     - id: agent:deploy-bot                 # the authenticated identity that enters fingerprints
//       api_keys_sha256: [<64 hex>, …]       # hashes only; several while a key rotates (see api-key.ts)
//       tools: [create_deployment]           # or "*"
//       session_grant: automatic             # automatic | human (default): what a new agent process gets
//       limits:                              # optional, each field too (see actor-limits.ts)
//         rate_per_second: 20                # token bucket: calls added per second
//         burst: 200                         # token bucket size
//         max_in_flight: 100                 # executions accepted and not yet settled
//   defaults:                                # optional: limits for actors that don't set their own
//     limits: { rate_per_second: 20, burst: 200, max_in_flight: 100 }
//   admins:                                  # operators of the admin API
//     - id: ops:alice
//       api_keys_sha256: [<64 hex>]
//       oauth_subjects: [alice]              # with oauth:, values of admin_claim that are this admin;
//                                            # with them, api_keys_sha256 is optional
//   oauth: { issuer, resource, … }           # optional: bearer JWTs beside API keys (oauth-section.schema.ts);
//                                            # an actor then names its token subjects in oauth_subjects: [...]
//                                            # and may have them instead of api_keys_sha256
//
// api_keys_sha256 may instead come from ONCEPORT_ACTOR_KEYS_FILE (the hashes as a Secret, the
// policy as a ConfigMap); each identity's hashes live in exactly one of the two files:
//
//   keys:
//     - id: agent:deploy-bot
//       api_keys_sha256: [<64 hex>, …]

export const PRINCIPAL_ID_EXPECTED = 'an identity such as agent:deploy-bot or ops:alice (letters, digits and . _ : @ / + -, at most 128)';
export const KEY_HASH_EXPECTED =
  'the SHA-256 of an API key as 64 hex characters, never the key itself (see hashApiKey in @onceport/config for how to make one)';

const PrincipalId = z
  .string({ error: PRINCIPAL_ID_EXPECTED })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127}$/, { error: PRINCIPAL_ID_EXPECTED });

const KeyHashes = z
  .array(z.string({ error: KEY_HASH_EXPECTED }).regex(/^[0-9a-fA-F]{64}$/, { error: KEY_HASH_EXPECTED }), {
    error: `a list of key hashes: ${KEY_HASH_EXPECTED}`,
  })
  .min(1, { error: 'at least one key hash (an identity nobody can authenticate as is a mistake)' });

const TOOLS_EXPECTED = 'a list of tool names (possibly empty), or "*" for every tool';
const Tools = z.union(
  [z.literal('*'), z.array(z.string().regex(TOOL_NAME_PATTERN, { error: 'a tool name as declared in the tool contracts' }))],
  { error: TOOLS_EXPECTED },
);

/** Generous bounds: the point is to refuse typos and nonsense (0, negative, 1e12), not to judge a load. */
const LIMIT_CEILING = 1_000_000;
const RATE_EXPECTED = `calls per second for this actor: a number above 0 and at most ${LIMIT_CEILING} (e.g. 20, or 0.5 for one every 2 s)`;
const BURST_EXPECTED = `how many calls may arrive at once: a whole number from 1 to ${LIMIT_CEILING}`;
const IN_FLIGHT_EXPECTED = `how many executions may be accepted and not yet settled at once: a whole number from 1 to ${LIMIT_CEILING}`;

export const RawLimits = z.strictObject(
  {
    rate_per_second: z
      .number({ error: RATE_EXPECTED })
      .positive({ error: RATE_EXPECTED })
      .max(LIMIT_CEILING, { error: RATE_EXPECTED })
      .optional(),
    burst: z
      .number({ error: BURST_EXPECTED })
      .int({ error: BURST_EXPECTED })
      .min(1, { error: BURST_EXPECTED })
      .max(LIMIT_CEILING, { error: BURST_EXPECTED })
      .optional(),
    max_in_flight: z
      .number({ error: IN_FLIGHT_EXPECTED })
      .int({ error: IN_FLIGHT_EXPECTED })
      .min(1, { error: IN_FLIGHT_EXPECTED })
      .max(LIMIT_CEILING, { error: IN_FLIGHT_EXPECTED })
      .optional(),
  },
  { error: 'a mapping with rate_per_second, burst and max_in_flight (each optional)' },
);

const RawDefaults = z.strictObject(
  { limits: RawLimits.optional() },
  { error: 'a mapping with limits: (the limits of actors that set none)' },
);

export const RawActor = z.strictObject(
  {
    id: PrincipalId,
    // Optional here: it may come from the keys file; merge-actor-keys.ts requires it in one of them.
    api_keys_sha256: KeyHashes.optional(),
    tools: Tools,
    // A human in the loop unless the operator said otherwise: the safe reading of silence.
    session_grant: z
      .enum(['automatic', 'human'], { error: 'automatic | human (what a new agent process of this actor gets)' })
      .default('human'),
    limits: RawLimits.optional(),
    oauth_subjects: OAuthSubjects.optional(),
  },
  { error: 'a mapping with id, api_keys_sha256, tools, session_grant, limits and oauth_subjects' },
);

export const RawAdmin = z.strictObject(
  { id: PrincipalId, api_keys_sha256: KeyHashes.optional(), oauth_subjects: OAuthAdminSubjects.optional() },
  { error: 'a mapping with id, api_keys_sha256 and oauth_subjects' },
);

export const RawActorsFile = z.strictObject(
  {
    actors: z.array(RawActor, { error: 'a list of actors (agent identities)' }),
    admins: z.array(RawAdmin, { error: 'a list of admins (operators of the admin API)' }).default([]),
    defaults: RawDefaults.optional(),
    oauth: RawOAuth.optional(),
  },
  { error: 'a mapping with actors: and admins: lists (and optional defaults: and oauth:)' },
);

const RawActorKeys = z.strictObject({ id: PrincipalId, api_keys_sha256: KeyHashes }, { error: 'a mapping with id and api_keys_sha256' });

export const RawActorKeysFile = z.strictObject(
  { keys: z.array(RawActorKeys, { error: 'a list of { id, api_keys_sha256 } entries, one per actor or admin of the actors file' }) },
  { error: 'a mapping with a keys: list' },
);

/** The fields each kind of mapping knows, for "did you mean" messages on unknown fields. */
export const KNOWN_FIELDS = {
  file: Object.keys(RawActorsFile.shape),
  actor: Object.keys(RawActor.shape),
  admin: Object.keys(RawAdmin.shape),
  defaults: Object.keys(RawDefaults.shape),
  limits: Object.keys(RawLimits.shape),
  oauth: Object.keys(RawOAuth.shape),
  keysFile: Object.keys(RawActorKeysFile.shape),
  keys: Object.keys(RawActorKeys.shape),
} as const;

export type RawActorsFile = z.output<typeof RawActorsFile>;
export type RawActorKeysFile = z.output<typeof RawActorKeysFile>;
