import { mcpVerdictOf, verdictOf } from './attempt-verdict';

describe('verdictOf', () => {
  const observed = (status: number) => ({
    kind: 'observed' as const,
    status,
    headers: {},
    body: Buffer.from('{}'),
    truncated: false,
    contentType: 'application/json',
    digest: `sha256:${'0'.repeat(64)}` as const,
    credentialRedacted: false,
  });

  it('counts only a 2xx answer as success', () => {
    expect(
      [200, 201, 204, 299, 301, 404, 422, 500].map((status) => (verdictOf(observed(status)) as { succeeded: boolean }).succeeded),
    ).toEqual([true, true, true, true, false, false, false, false]);
  });

  it('keeps the channel’s retryable judgement and code for a failure before send', () => {
    expect(
      verdictOf({ kind: 'failed_before_send', code: 'connect_refused', reason: 'connect ECONNREFUSED 127.0.0.1:1', retryable: true }),
    ).toEqual({
      kind: 'failed_before_send',
      reason: 'connect_refused: connect ECONNREFUSED 127.0.0.1:1',
      retryable: true,
    });
  });

  it('says at which stage an unknown outcome was lost', () => {
    expect(verdictOf({ kind: 'unknown', code: 'timeout', reason: 'no answer in 15000 ms', stage: 'request_written' })).toEqual({
      kind: 'unknown',
      reason: 'timeout after the request was written: no answer in 15000 ms',
    });
    expect(verdictOf({ kind: 'unknown', code: 'body_timeout', reason: 'body stalled', stage: 'response_started' })).toMatchObject({
      reason: expect.stringContaining('after the response had started'),
    });
  });
});

describe('mcpVerdictOf', () => {
  it('keeps the task id of an unfinished upstream task, so the reconciler can poll it', () => {
    expect(
      mcpVerdictOf({ kind: 'unknown', code: 'task_unfinished', reason: 'task tsk_1: still working', upstreamTaskId: 'tsk_1' }),
    ).toEqual({
      kind: 'unknown',
      reason: 'task_unfinished: task tsk_1: still working',
      upstreamTaskId: 'tsk_1',
    });
    expect(mcpVerdictOf({ kind: 'unknown', code: 'timeout', reason: 'no result within 5 ms' })).toEqual({
      kind: 'unknown',
      reason: 'timeout: no result within 5 ms',
    });
  });
});
