import { testArgumentSealer, testEncryptionKeys } from '@onceport/service-kit/testing';
import { DispatchHarness, NO_HEADERS } from '../../test/dispatch-harness';

const CARD = 'tok_visa_4242424242424242';
const CHARGE = { customer_id: 'cus_sealed', amount_cents: 4200, currency: 'EUR', card_token: CARD, description: 'March' };
const CREDENTIALS = { ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'pay_live_test_secret' };

describe('sealed sensitive arguments at dispatch (real PostgreSQL, real HTTP target)', () => {
  let harness: DispatchHarness;

  beforeEach(async () => {
    harness = await DispatchHarness.start();
  });
  afterEach(() => harness.close());

  const storedText = async (executionId: string): Promise<string> => JSON.stringify(await harness.events(executionId));

  it('opens a sealed card token right before the request: the target gets the real value, no stored event or log line holds it', async () => {
    const executionId = await harness.seed('charge_payment', { arguments: CHARGE, sealWith: harness.sealer });
    const accepted = (await harness.events(executionId))[0];
    expect(accepted?.type === 'ExecutionAccepted' && accepted.data.arguments['card_token']).toEqual({
      $sealed: expect.stringMatching(/^aes-256-gcm:t1:/),
    });

    await harness
      .dispatcher({ credentialEnv: CREDENTIALS })
      .handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(await harness.status(executionId)).toBe('completed_result_not_delivered');
    expect(harness.target.effects({ route: 'payments' }).map((effect) => effect.body)).toEqual([
      expect.objectContaining({ card_token: CARD, customer_id: 'cus_sealed' }),
    ]);
    expect(await storedText(executionId)).not.toContain('4242424242');
    expect(harness.logLines.join('\n')).not.toContain('4242424242');
  });

  it('still dispatches an execution stored before sealing existed (the card token in clear)', async () => {
    const executionId = await harness.seed('charge_payment', { arguments: CHARGE });

    await harness
      .dispatcher({ credentialEnv: CREDENTIALS })
      .handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect(harness.target.effects({ route: 'payments' }).map((effect) => effect.body)).toEqual([
      expect.objectContaining({ card_token: CARD }),
    ]);
  });

  it('refuses before sending a value sealed under a key this dispatcher does not hold, naming the key: 0 effects', async () => {
    const executionId = await harness.seed('charge_payment', {
      arguments: CHARGE,
      sealWith: testArgumentSealer(testEncryptionKeys('retired')),
    });

    await harness
      .dispatcher({ credentialEnv: CREDENTIALS })
      .handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    const last = (await harness.events(executionId)).at(-1);
    expect(last).toMatchObject({
      type: 'DispatchFailedBeforeSend',
      data: {
        retryable: false,
        reason: expect.stringContaining('sealed under key "retired", which ONCEPORT_ENCRYPTION_KEYS does not hold'),
      },
    });
    expect(await harness.status(executionId)).toBe('failed');
    expect(harness.target.effectCount()).toBe(0);
  });

  it('refuses a sealed value moved from another execution: it does not open here', async () => {
    const executionId = await harness.seed('charge_payment', {
      arguments: CHARGE,
      sealWith: harness.sealer,
      sealFor: 'exe_01J4K8J7DX7V0000000000000Z',
    });

    await harness
      .dispatcher({ credentialEnv: CREDENTIALS })
      .handler.handle(await harness.wire(executionId, 'ExecutionAuthorized'), NO_HEADERS);

    expect((await harness.events(executionId)).at(-1)).toMatchObject({
      type: 'DispatchFailedBeforeSend',
      data: { reason: expect.stringContaining('sealed for another execution or argument') },
    });
    expect(harness.target.effectCount()).toBe(0);
  });
});
