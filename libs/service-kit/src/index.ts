export { type LogContext, currentLogContext, withExecutionId, withLogContext } from './logging/log-context';
export {
  type LogLevel,
  type LoggingOptions,
  REDACTED,
  REDACT_PATHS,
  type ServiceLog,
  type ServiceLogOptions,
  type TextScrubber,
  configureLogging,
  createLogger,
  processLog,
  serviceLog,
  serviceLogger,
} from './logging/service-logger';
export { NestLogger, ServiceLoggingModule } from './logging/nest-logging.module';
export { HealthModule, type ReadinessChecksProvider } from './health/health.module';
export { READINESS_CHECKS, type ReadinessCheck } from './health/readiness-check';
export { type ReadinessAnswer } from './health/health.controller';
export {
  PROBLEM_CONTENT_TYPE,
  PROBLEM_TYPE_BASE,
  Problem,
  type ProblemDetails,
  problemCode,
  problemDetails,
  problemType,
  sendProblem,
  writeProblem,
} from './problems/problem';
export { ProblemDetailsFilter, SERVICE_LOG, clientProblemOf, internalProblem } from './problems/problem-details.filter';
export { type ErrorLog, internalErrorMessage, reportInternalError } from './problems/internal-error';
export { type AdminAuthentication, AdminAuth, adminAuthOf, requireAdmin } from './admin/admin-auth';
export { ADMIN_REALM, AdminTokenAuthenticator, type AdminTokenVerdict } from './admin/admin-token';
export {
  type AccessTokenCheck,
  AccessTokenVerifier,
  MAX_ACCESS_TOKEN_LENGTH,
  type TokenVerdict,
  looksLikeJwt,
} from './oauth/access-token-verifier';
export { BEARER_REALM, type BearerChallenge, type BearerError, bearerChallenge } from './oauth/bearer-challenge';
export { type FetchLimits, OAUTH_FETCH_LIMITS, OAuthFetchError, fetchBoundedJson } from './oauth/bounded-json-fetch';
export { type FetchJson, discoverJwksUri, issuerMetadataUrls } from './oauth/issuer-metadata';
export { JWKS_CACHE_DEFAULTS, JwksCache, type JwksCacheOptions, SigningKeysUnavailableError } from './oauth/jwks-cache';
export { type IssuerKeysOptions, issuerKeys } from './oauth/issuer-keys';
export { type TokenClaims, readTokenClaims } from './oauth/token-claims';
export { REQUEST_ID, requestIdOrFresh } from './http/request-id';
export { type ServerLimitsEnv, applyServerLimits, hardenHttpServer, serverLimitsEnvShape } from './http/server-limits';
export { ClientAbortedError, ClientAbortedFilter, type InfoLog, isClientAbort, settledClientAbort } from './http/client-aborted';
export {
  BodyTooLargeError,
  MalformedJsonError,
  type ReadJsonBodyOptions,
  readJsonBody,
  readJsonBodyOrProblem,
} from './http/read-json-body';
export { type Tracing, type TracingOptions, contextFromTraceparent, currentTraceContext, inSpan, initTracing } from './tracing/tracing';
export { FileSpanExporter } from './tracing/file-span-exporter';
export { AesGcmArgumentSealer } from './secrets/aes-gcm-argument-sealer';
export { SecretScrubber } from './secrets/secret-scrubber';
export {
  type AckWaitSettings,
  ackWaitEnvShape,
  ackWaitOf,
  effectiveAckWaitMs,
  listenHost,
  migrationEnvShape,
  runtimeEnvShape,
} from './runtime-env';
export { type RuntimeEnv } from './runtime-env';
export { allMigrations, migrate } from './database/service-migrations';
export { COMMAND_HANDLER, EVENT_DELIVERY, PG_POOL, RESULT_STORE, SERVICE_CONFIG, TRACER } from './ports/tokens';
export { EVENT_STORE } from '@onceport/event-store';
export { type ServiceConfig, serviceConfigOf } from './ports/service-config';
export { ormConnectionOf } from './ports/orm-connection';
export { type ServicePorts, openServicePorts } from './ports/service-ports';
export { ServiceKitModule } from './ports/service-kit.module';
export { portReadinessChecks } from './health/port-readiness';
export { MetricsController } from './metrics/metrics.controller';
export { OTHER_LABEL, targetLabel, toolLabel } from './metrics/metric-labels';
export { type UnknownDetectedBy, countUnknownOutcome } from './metrics/unknown-outcomes';
export { LAG_BUCKETS, LATENCY_BUCKETS, WAIT_BUCKETS, processCounter, processGauge, processHistogram } from '@onceport/event-store';
export { type FeatureModuleOptions } from './bootstrap/feature-options';
export { type ServiceDefinition, bootstrapService } from './bootstrap/bootstrap-service';
