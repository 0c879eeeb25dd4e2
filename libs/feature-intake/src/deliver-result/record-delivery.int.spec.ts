import { PostgresEventStore, executionStream, loadStream } from '@onceport/event-store';
import { recordStreamReads } from '@onceport/event-store/testing';
import { waitFor } from '@onceport/messaging/testing';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';

// A ResultDelivered append that fails the first `failures` times (a sequence, so the count survives the rollback).
const failResultDelivered = (failures: number): string => `
  CREATE SEQUENCE IF NOT EXISTS test_result_delivered_tries;
  CREATE OR REPLACE FUNCTION test_fail_result_delivered() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.event_type = 'ResultDelivered' AND nextval('test_result_delivered_tries') <= ${failures} THEN
      RAISE EXCEPTION 'test: ResultDelivered refused';
    END IF;
    RETURN NEW;
  END $$;
  DROP TRIGGER IF EXISTS test_fail_result_delivered ON onceport.events;
  CREATE TRIGGER test_fail_result_delivered BEFORE INSERT ON onceport.events FOR EACH ROW EXECUTE FUNCTION test_fail_result_delivered();`;

describe('recording a delivery after the answer went out (real PostgreSQL)', () => {
  let h: IntakeHarness;
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const deploy = (project: string) => ({ project, environment: 'staging', version: '1.0.0', notes: 'first draft' });

  beforeAll(async () => {
    h = await startIntakeHarness({ log: (level, message, fields = {}) => lines.push({ level, message, fields }) });
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    lines.length = 0;
    await h.db.pool.query(
      'DROP TRIGGER IF EXISTS test_fail_result_delivered ON onceport.events; DROP SEQUENCE IF EXISTS test_result_delivered_tries',
    );
  });

  const completedAnswer = async (project: string) => {
    const first = await h.callTool.call(h.request({ arguments: deploy(project) }));
    await h.complete(first.answer.execution_id, { status: 201, body: { id: 'dep_9', project } });
    const { answer } = await h.callTool.call(h.request({ arguments: deploy(project) }));
    expect(answer.state).toBe('completed_result_not_delivered');
    return answer;
  };
  const types = async (executionId: string) => (await loadStream(h.ports.store, executionStream(executionId))).events.map((e) => e.type);

  it('the first try decides on the fold the answer was built from: the stream is not read again', async () => {
    const answer = await completedAnswer('delivery-no-read');
    const reads = recordStreamReads(h.ports.store);
    const elsewhere = new PostgresEventStore(h.ports.pool);
    h.delivery.recordAfterResponse(answer, 'mcp', h.request().correlation);
    await waitFor(
      async () => (await loadStream(elsewhere, executionStream(answer.execution_id))).events.some((e) => e.type === 'ResultDelivered'),
      10_000,
      'the delivery recorded',
    );
    expect(reads.filter((streams) => streams.some((id) => id.endsWith(answer.execution_id)))).toEqual([]);
    expect((await types(answer.execution_id)).filter((type) => type === 'ResultDelivered')).toHaveLength(1);
  });

  it('a failed ResultDelivered write is logged and tried again: the delivery is on record', async () => {
    const answer = await completedAnswer('delivery-once');
    await h.db.pool.query(failResultDelivered(1));
    h.delivery.recordAfterResponse(answer, 'mcp', h.request().correlation);
    await waitFor(async () => (await types(answer.execution_id)).includes('ResultDelivered'), 10_000, 'the delivery recorded');
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ executionId: answer.execution_id, attempt: 1 }) }),
    );
    expect((await types(answer.execution_id)).filter((type) => type === 'ResultDelivered')).toHaveLength(1);
  });

  it('when every try fails, it says so and leaves the result undelivered: the next retry is answered with it', async () => {
    const answer = await completedAnswer('delivery-never');
    await h.db.pool.query(failResultDelivered(1_000));
    h.delivery.recordAfterResponse(answer, 'mcp', h.request().correlation);
    await waitFor(async () => lines.some((line) => line.level === 'error'), 10_000, 'the give-up line');
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(3);
    expect(await types(answer.execution_id)).not.toContain('ResultDelivered');
    const retry = await h.callTool.call(h.request({ arguments: deploy('delivery-never') }));
    expect(retry.answer).toMatchObject({
      execution_id: answer.execution_id,
      state: 'completed_result_not_delivered',
      replay: true,
      result: { body: { id: 'dep_9' } },
    });
  });
});
