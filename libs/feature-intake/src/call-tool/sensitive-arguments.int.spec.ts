import { executionStreamId } from '@onceport/contracts';
import { type ExecutionCommand, isSealedValue, newExecutionId } from '@onceport/domain';
import { acceptCommand } from '@onceport/domain/testing';
import { randomBytes } from 'node:crypto';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { executionStream } from '@onceport/event-store';

const CARD = 'tok_visa_4242424242424242';
const CHARGE = { customer_id: 'cus_sealed', amount_cents: 4200, card_token: CARD, description: 'March' };

describe('sensitive arguments at intake (real PostgreSQL)', () => {
  let harness: IntakeHarness;

  beforeAll(async () => {
    harness = await startIntakeHarness();
  });
  afterAll(() => harness.close());

  it('stores an accepted call with its card token sealed to the execution: no event holds it in clear', async () => {
    const { answer } = await harness.callTool.call(harness.request({ tool: 'charge_payment', arguments: CHARGE }));
    const [accepted] = await harness.ports.store.readStream(executionStreamId(answer.execution_id));
    const stored = (accepted?.data as { arguments: Record<string, unknown> }).arguments;

    expect(stored).toMatchObject({ customer_id: 'cus_sealed', amount_cents: 4200, description: 'March' });
    const sealed = stored['card_token'];
    if (!isSealedValue(sealed)) throw new Error(`card_token is stored as ${JSON.stringify(sealed)}, not sealed`);
    expect(JSON.stringify((await harness.allEvents()).map((event) => event.data))).not.toContain('4242424242');
    // The value is still the caller's, for whoever holds the key and the binding (the dispatcher).
    expect(harness.sealer.open(sealed, { executionId: answer.execution_id, argument: 'card_token' })).toBe(CARD);
  });

  it('shows the agent its timeline with the card token redacted', async () => {
    const { answer } = await harness.callTool.call(harness.request({ tool: 'charge_payment', arguments: CHARGE }));
    const { timeline } = await harness.query.status(answer.execution_id, 'agent:a');

    expect(timeline[0]).toMatchObject({
      type: 'ExecutionAccepted',
      data: { arguments: { customer_id: 'cus_sealed', card_token: '[redacted]', description: 'March' } },
    });
    expect(JSON.stringify(timeline)).not.toContain('$sealed');
  });

  it('redacts a card token an older event stored in clear, as the contract marks it sensitive', async () => {
    const executionId = newExecutionId(Date.now(), randomBytes(10));
    const sample = acceptCommand();
    if (sample.type !== 'AcceptExecution') throw new Error('acceptCommand() should build an AcceptExecution');
    // Written the way intake wrote it before sealing existed: every argument as the agent sent it.
    const record = { ...sample.data.record, tool: 'charge_payment', actor: 'agent:a' };
    const accept: ExecutionCommand = acceptCommand({ executionId, tool: 'charge_payment', actor: 'agent:a', record, arguments: CHARGE });
    await harness.ports.commands.handle(executionStream(executionId), (_loaded, now) => ({ ...accept, metadata: { now } }), {
      causationId: 'test:old-event',
    });
    expect(JSON.stringify((await harness.ports.store.readStream(executionStreamId(executionId))).map((event) => event.data))).toContain(
      CARD,
    );

    const { timeline } = await harness.query.status(executionId, 'agent:a');

    expect(timeline[0]?.data).toMatchObject({ arguments: { card_token: '[redacted]', customer_id: 'cus_sealed' } });
    expect(JSON.stringify(timeline)).not.toContain('4242424242');
  });
});
