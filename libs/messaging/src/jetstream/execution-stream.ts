import { EXECUTION_STREAM_SUBJECTS } from '@onceport/contracts';
import type { StreamSpec } from './topology';

export const EXECUTION_STREAM_NAME = 'ONCEPORT_EXECUTION';

/** The one stream every execution event travels on. `replicas: 3` on a JetStream cluster. */
export function executionStreamSpec(replicas = 1): StreamSpec {
  return { name: EXECUTION_STREAM_NAME, subjects: [EXECUTION_STREAM_SUBJECTS], replicas };
}
