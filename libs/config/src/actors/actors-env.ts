import { z } from 'zod';

/** `ONCEPORT_ACTORS_FILE`: required, never defaulted — a built-in list of keys would be the same everywhere. */
export const actorsFile = z.string({ error: 'the path of the actors YAML file (agent identities with their key hashes and tools, and the admins)' });
