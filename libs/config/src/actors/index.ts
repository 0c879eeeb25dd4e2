export type { Actor, ActorsFile, Admin, SessionGrantMode } from './actors-file.types';
export { actorMayUse } from './actors-file.types';
export { ActorsFileError, type ActorsFileIssue, type ActorsFileIssueCode } from './actors-file-error';
export { parseActorsFile, type ActorKeysText } from './parse-actors-file';
export { loadActorsFile } from './load-actors-file';
export { ActorDirectory } from './actor-directory';
export { bearerToken, hashApiKey } from './api-key';
export { actorsFile, actorKeysFile } from './actors-env';
export { type ActorLimits, type ActorLimitsTable, BUILT_IN_ACTOR_LIMITS } from './actor-limits';
