import {
  type CampaignEvent,
  CampaignGrantedEvent,
  CampaignUseCountedEvent,
  campaignStreamId,
  createEvent,
  parseCampaignEvent,
} from '@onceport/contracts';
import { type CampaignCommand, type CampaignState, campaignDecider } from '@onceport/domain';
import type { Stream, StreamKind } from '../stream-kind';
import { storedEnvelope } from './stored-envelope';

const campaignKind: StreamKind<CampaignCommand, CampaignState, CampaignEvent> = {
  decider: campaignDecider,
  read: (stored) => parseCampaignEvent(storedEnvelope(stored)),
  write: (event, metadata) =>
    event.type === 'CampaignGranted'
      ? createEvent(CampaignGrantedEvent, event.data, metadata)
      : createEvent(CampaignUseCountedEvent, event.data, metadata),
  // Every use is decided on the latest count: read whole, never from a cache another replica may have moved past.
  cached: false,
};

export type CampaignStream = Stream<CampaignCommand, CampaignState, CampaignEvent>;

/** The campaign approvals of one tool in one run (DESIGN.md §7). */
export function campaignStream(runId: string, tool: string): CampaignStream {
  const id = campaignStreamId(runId, tool);
  return { id, correlationId: id, kind: campaignKind };
}
