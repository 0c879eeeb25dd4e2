import { contractsDir, databaseUrl, logLevel, natsUrl } from '@onceport/config';
import { z } from 'zod';

/** Environment every service reads at start (validated once by `loadEnvConfig`; errors name the variable). */
export const runtimeEnvShape = {
  DATABASE_URL: databaseUrl,
  NATS_URL: natsUrl,
  ONCEPORT_CONTRACTS_DIR: contractsDir,
  LOG_LEVEL: logLevel,
  ONCEPORT_DELIVERY: z.enum(['jetstream', 'in_process']).default('jetstream'),
  ONCEPORT_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
};
