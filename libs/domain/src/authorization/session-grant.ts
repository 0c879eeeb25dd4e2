import { type SessionEvent, type SessionGrantBasis } from '@onceport/contracts';

export interface SessionGrant {
  readonly actor: string;
  readonly agentProcess: string;
  readonly basis: SessionGrantBasis;
  readonly grantedBy: string;
  readonly policyVersion: string;
  readonly grantedAt: string;
}

/**
 * Folds a session stream: the grant it holds, or null while the agent process has none. The first
 * grant stands; writers append with an expected version, so there is never a second.
 *
 * @example const grant = sessionGranted(events); if (!grant) askForOne();
 */
export function sessionGranted(events: readonly SessionEvent[]): SessionGrant | null {
  const first = events.find((event) => event.type === 'SessionGranted');
  return first ? { ...first.data } : null;
}

/** The process a call counts against: the agent's own process id, or the actor itself when it named none. */
export function effectiveAgentProcess(actor: string, agentProcess: string | null): string {
  return agentProcess ?? actor;
}
