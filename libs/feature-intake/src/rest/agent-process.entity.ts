import { EntitySchema, type Opt } from '@mikro-orm/core';

/** A row of `onceport.rest_agent_processes` (migrations 201 and 210). */
export interface RestAgentProcessRow {
  agentProcess: string;
  actor: string;
  issuedAt: Opt<Date>;
  usedAt: Date | null;
}

export const RestAgentProcessEntity = new EntitySchema<RestAgentProcessRow>({
  name: 'RestAgentProcess',
  schema: 'onceport',
  tableName: 'rest_agent_processes',
  properties: {
    agentProcess: { type: 'text', primary: true },
    actor: { type: 'text' },
    issuedAt: { type: 'Date', columnType: 'timestamptz', defaultRaw: 'now()' },
    usedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
