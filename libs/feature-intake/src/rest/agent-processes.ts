import { randomBytes } from 'node:crypto';
import type { Queryable } from '@onceport/event-store';

/** `rap_` and 32 random bytes (256 bits) in base64url: not guessable, not an MCP session id (a UUID). */
export const REST_AGENT_PROCESS = /^rap_[A-Za-z0-9_-]{43}$/;

export interface IssuedAgentProcess {
  readonly agentProcess: string;
  readonly actor: string;
  readonly issuedAt: string;
}

/**
 * Whom a used REST agent process was issued to: the answer never changes once used (only ids never
 * used are pruned), so it may be remembered.
 */
const REMEMBERED = 10_000;

/** REST agent processes, shared by every intake replica through PostgreSQL. */
export class RestAgentProcesses {
  private readonly owners = new Map<string, string>();

  constructor(private readonly db: Queryable) {}

  async issue(actor: string): Promise<IssuedAgentProcess> {
    const agentProcess = `rap_${randomBytes(32).toString('base64url')}`;
    const result = await this.db.query<{ issued_at: Date }>('INSERT INTO onceport.rest_agent_processes (agent_process, actor) VALUES ($1, $2) RETURNING issued_at', [agentProcess, actor]);
    const issuedAt = result.rows[0]?.issued_at;
    if (!issuedAt) throw new Error('rest_agent_processes: INSERT … RETURNING gave no row');
    return { agentProcess, actor, issuedAt: issuedAt.toISOString() };
  }

  /**
   * The actor the process was issued to; null when it was never issued (by any replica) or was
   * pruned unused. Asking counts as using it: from then on it is never pruned.
   */
  async ownerOf(agentProcess: string): Promise<string | null> {
    if (!REST_AGENT_PROCESS.test(agentProcess)) return null;
    const known = this.owners.get(agentProcess);
    if (known !== undefined) return known;
    const result = await this.db.query<{ actor: string }>(
      'UPDATE onceport.rest_agent_processes SET used_at = COALESCE(used_at, now()) WHERE agent_process = $1 RETURNING actor',
      [agentProcess],
    );
    const actor = result.rows[0]?.actor ?? null;
    if (actor !== null) this.remember(agentProcess, actor);
    return actor;
  }

  private remember(agentProcess: string, actor: string): void {
    if (this.owners.size >= REMEMBERED) this.owners.clear();
    this.owners.set(agentProcess, actor);
  }
}
