export { AuthorizationModule } from './authorization.module';
export { AUTHORIZATION_OPTIONS, type AuthorizationOptions } from './authorization.options';
export { type AuthorizationEnv, authorizationEnvShape } from './authorization.settings';
export {
  AUTHORIZATION_SERVICE,
  type AuthorizationDecision,
  type AuthorizationInput,
  type AuthorizationRung,
  approvalIdFor,
  decideAuthorization,
  executionIdOfApproval,
} from './authorize-execution/decide-authorization';
export {
  type AuthorizationOutcome,
  AuthorizeExecutionHandler,
  type AuthorizeExecutionDependencies,
} from './authorize-execution/authorize-execution.handler';
export { AUTHORIZATION_DURABLE } from './authorize-execution/execution-accepted.consumer';
export { type VaultChange, changeVault } from './vault/change-vault';
export { type Log, jsonLog } from './shared/log';
export { ApprovalDesk, type ApprovalDecision, type ApprovalDeskDependencies, type ApprovalFilter } from './approvals/approval-desk';
export { ApprovalExpirySweep } from './approvals/approval-expiry.sweep';
export { type ApprovalStatus, type ApproverView, approverViewOf } from './approvals/approver-view';
export { type OperationTarget, targetOf } from './approvals/operation-target';
export { type RevertView } from './revert-execution/revert-admin.controller';
