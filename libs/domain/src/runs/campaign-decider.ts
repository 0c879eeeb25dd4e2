import { type CampaignEvent } from '@onceport/contracts';
import { type Decider } from '../decider';
import { type CommandMetadata } from '../execution/execution-command';

export interface CampaignGrant {
  readonly by: string;
  readonly reason: string;
  readonly count: number;
  readonly grantedAt: string;
}

/** The campaign approvals of one tool in one run: what was granted, and which executions used them. */
export interface CampaignState {
  readonly grants: readonly CampaignGrant[];
  readonly granted: number;
  /** Execution id → its use number. */
  readonly uses: ReadonlyMap<string, number>;
}

export interface GrantCampaign {
  readonly type: 'GrantCampaign';
  readonly data: {
    readonly runId: string;
    readonly tool: string;
    readonly count: number;
    readonly by: string;
    readonly reason: string;
    readonly shown: readonly string[];
  };
  readonly metadata: CommandMetadata;
}

/** An execution of the run takes one granted use; taking it again (a redelivery) records nothing. */
export interface UseCampaign {
  readonly type: 'UseCampaign';
  readonly data: { readonly executionId: string };
  readonly metadata: CommandMetadata;
}

export type CampaignCommand = GrantCampaign | UseCampaign;

/** No granted use is left (or none was ever granted): the call waits for a human of its own. */
export class CampaignExhausted extends Error {
  constructor(readonly granted: number) {
    super(granted === 0 ? 'no campaign grant for this run and tool' : `all ${granted} granted uses are taken`);
    this.name = 'CampaignExhausted';
  }
}

export function remainingUses(state: CampaignState): number {
  return state.granted - state.uses.size;
}

/** A grant of the campaign (with its reason) that a given use fell under: grants are used in order. */
export function grantOfUse(state: CampaignState, use: number): CampaignGrant | null {
  let upTo = 0;
  for (const grant of state.grants) {
    upTo += grant.count;
    if (use <= upTo) return grant;
  }
  return null;
}

export const campaignDecider: Decider<CampaignCommand, CampaignState, CampaignEvent> = {
  decide: (command, state) => {
    const at = command.metadata.now.toISOString();
    if (command.type === 'GrantCampaign') {
      const { runId, tool, count, by, reason, shown } = command.data;
      return [{ type: 'CampaignGranted', data: { runId, tool, count, by, reason, shown: [...shown], grantedAt: at } }];
    }
    if (state.uses.has(command.data.executionId)) return [];
    if (remainingUses(state) <= 0) throw new CampaignExhausted(state.granted);
    return [{ type: 'CampaignUseCounted', data: { executionId: command.data.executionId, use: state.uses.size + 1, countedAt: at } }];
  },
  evolve: (state, event) => {
    if (event.type === 'CampaignGranted') {
      const { by, reason, count, grantedAt } = event.data;
      return { ...state, grants: [...state.grants, { by, reason, count, grantedAt }], granted: state.granted + count };
    }
    return { ...state, uses: new Map([...state.uses, [event.data.executionId, event.data.use]]) };
  },
  initialState: () => ({ grants: [], granted: 0, uses: new Map() }),
};
