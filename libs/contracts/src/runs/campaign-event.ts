import { type EventEnvelope } from '../events/event';
import { type EventRegistry, createEventRegistry } from '../events/event-registry';
import { type CampaignGranted, CampaignGrantedEvent, type CampaignUseCounted, CampaignUseCountedEvent } from './campaign-granted.event';

/** Every event of a campaign stream. */
export type CampaignEvent = CampaignGranted | CampaignUseCounted;
export type CampaignEventEnvelope = EventEnvelope<CampaignEvent>;

export const campaignEventDefinitions = {
  CampaignGranted: CampaignGrantedEvent,
  CampaignUseCounted: CampaignUseCountedEvent,
} as const satisfies { [Type in CampaignEvent['type']]: { readonly type: Type } };

export const campaignEventRegistry: EventRegistry<CampaignEventEnvelope> = createEventRegistry(
  Object.values(campaignEventDefinitions).map((current) => ({ current, past: [] })),
);

/** Validates a stored campaign event and upcasts it to the current schema version. Throws `EventParseError`. */
export function parseCampaignEvent(raw: unknown): CampaignEventEnvelope {
  return campaignEventRegistry.parse(raw);
}
