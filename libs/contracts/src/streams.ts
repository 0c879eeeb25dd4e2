/** Every execution's events live in one stream named after it. */
const EXECUTION_STREAM_PREFIX = 'execution-';

export function executionStreamId(executionId: string): string {
  return `${EXECUTION_STREAM_PREFIX}${executionId}`;
}

/** The execution id of an execution stream, or null for any other stream. */
export function executionIdOfStream(streamId: string): string | null {
  return streamId.startsWith(EXECUTION_STREAM_PREFIX) ? streamId.slice(EXECUTION_STREAM_PREFIX.length) : null;
}
