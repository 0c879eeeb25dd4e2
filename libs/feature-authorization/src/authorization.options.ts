import { type ActorDirectory } from '@onceport/config';
import { type ApprovalMode } from '@onceport/contracts';
import { type Log } from './shared/log';

export const AUTHORIZATION_OPTIONS = Symbol('AUTHORIZATION_OPTIONS');

/** What the authorization service is configured with, loaded once at start. */
export interface AuthorizationOptions {
  readonly directory: ActorDirectory;
  /** Tool contracts by name; only their approval mode matters here. */
  readonly contracts: ReadonlyMap<string, { readonly approval: ApprovalMode }>;
  readonly approvalTtlMs: number;
  readonly log: Log;
}
