import { createHash } from 'node:crypto';

const CAMPAIGN_STREAM_PREFIX = 'campaign-';

/**
 * The campaign grants of one tool in one run: `campaign-<sha256(run id \n tool)>`. A run id and a
 * tool name hold no newline, so no two pairs share a stream.
 *
 * @example campaignStreamId('campaign-winter', 'send_email')
 */
export function campaignStreamId(runId: string, tool: string): string {
  if (runId.includes('\n') || tool.includes('\n')) throw new RangeError('campaignStreamId: run id and tool may not contain a newline');
  return `${CAMPAIGN_STREAM_PREFIX}${createHash('sha256').update(`${runId}\n${tool}`).digest('hex')}`;
}
