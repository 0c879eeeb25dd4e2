import { z } from 'zod';

/** The variable every service that reaches targets reads beside its `ONCEPORT_CREDENTIAL_<REF>` ones. */
export const credentialsEnvShape = {
  /** A mounted directory with one file per credential_ref (a Kubernetes secret volume); optional. */
  ONCEPORT_CREDENTIALS_DIR: z.string({ error: 'a directory of credential files' }).optional(),
};
