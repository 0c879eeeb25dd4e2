export { loadToolContracts, type LoadedToolContracts } from './load-tool-contracts';
export { loadEnvConfig, EnvConfigError, type EnvProblem } from './env/env-config';
export {
  CommonEnv,
  commonEnvShape,
  databaseUrl,
  postgresUrl,
  natsUrl,
  contractsDir,
  hmacKeys,
  encryptionKeys,
  ENCRYPTION_KEYS_EXPECTED,
  logLevel,
  LOG_LEVELS,
} from './env/common-env';
export * from './actors';
