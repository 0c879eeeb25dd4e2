import { z } from 'zod';

/** `ONCEPORT_ACTORS_FILE`: required, never defaulted — a built-in list of keys would be the same everywhere. */
export const actorsFile = z.string({
  error:
    'the path of the actors YAML file (agent identities with their tools, the admins, and their key hashes unless ONCEPORT_ACTOR_KEYS_FILE has them)',
});

/**
 * `ONCEPORT_ACTOR_KEYS_FILE`: optional. The key hashes of the actors and admins (`keys: [{ id,
 * api_keys_sha256 }]`) in a file of their own, so the policy can be a ConfigMap and the hashes a Secret.
 */
export const actorKeysFile = z
  .string({ error: 'the path of the actor keys YAML file (keys: [{ id, api_keys_sha256 }])' })
  .min(1, { error: 'the path of the actor keys YAML file, or leave the variable unset' })
  .optional();
