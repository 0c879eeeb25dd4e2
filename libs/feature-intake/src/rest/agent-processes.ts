import { randomBytes } from 'node:crypto';
import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RestAgentProcessEntity, type RestAgentProcessRow } from './agent-process.entity';

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

/** REST agent processes, shared by every intake replica through PostgreSQL; each call forks its own EntityManager. */
export class RestAgentProcesses {
  private readonly owners = new Map<string, string>();

  constructor(private readonly em: EntityManager) {}

  async issue(actor: string): Promise<IssuedAgentProcess> {
    const agentProcess = `rap_${randomBytes(32).toString('base64url')}`;
    const rows = await this.em
      .fork()
      .createQueryBuilder(RestAgentProcessEntity)
      .insert({ agentProcess, actor })
      .returning('issuedAt')
      .execute<Pick<RestAgentProcessRow, 'issuedAt'>[]>('all');
    const issuedAt = rows[0]?.issuedAt;
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
    const rows = await this.em
      .fork()
      .createQueryBuilder(RestAgentProcessEntity)
      .update({ usedAt: raw('COALESCE(used_at, now())') })
      .where({ agentProcess })
      .returning('actor')
      .execute<Pick<RestAgentProcessRow, 'actor'>[]>('all');
    const actor = rows[0]?.actor ?? null;
    if (actor !== null) this.remember(agentProcess, actor);
    return actor;
  }

  private remember(agentProcess: string, actor: string): void {
    if (this.owners.size >= REMEMBERED) this.owners.clear();
    this.owners.set(agentProcess, actor);
  }
}
