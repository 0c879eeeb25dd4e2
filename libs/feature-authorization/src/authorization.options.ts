import { type ActorDirectory } from '@onceport/config';
import { type ToolContract } from '@onceport/domain';
import { type Log } from './shared/log';

export const AUTHORIZATION_OPTIONS = Symbol('AUTHORIZATION_OPTIONS');

/** What the authorization service is configured with, loaded once at start. */
export interface AuthorizationOptions {
  readonly directory: ActorDirectory;
  /** Tool contracts by name: the approval mode for the ladder, the target for the approver's view. */
  readonly contracts: ReadonlyMap<string, ToolContract>;
  readonly approvalTtlMs: number;
  /** How often lapsed approvals are looked for and ended as `approval_expired`. */
  readonly approvalSweepMs: number;
  readonly log: Log;
}
