import type { JsonValue } from '@onceport/contracts';
import { demoContract } from '../../test/demo-contracts';
import { type ArgumentSealer, type SealBinding, type SealedValue, SealedArgumentError } from './sealed-value';
import { REDACTED, openSealedArguments, redactSensitiveArguments, sealSensitiveArguments } from './sensitive-arguments';

// Pure logic only: which arguments go through the port. The cipher itself is tested in the runtime
// (AesGcmArgumentSealer); this stand-in is reversible and records its binding.
const sealer: ArgumentSealer = {
  seal: (value: JsonValue, b: SealBinding): SealedValue => ({ $sealed: `test:${b.executionId}:${b.argument}:${JSON.stringify(value)}` }),
  open: (sealed: SealedValue, b: SealBinding): JsonValue => {
    const prefix = `test:${b.executionId}:${b.argument}:`;
    if (!sealed.$sealed.startsWith(prefix)) throw new SealedArgumentError('refused', b, 'bound elsewhere');
    return JSON.parse(sealed.$sealed.slice(prefix.length)) as JsonValue;
  },
};

const charge = demoContract('charge_payment');
const EXE = 'exe_01J4K8J7DX7V0000000000000A';
const args = { customer_id: 'cus_1', amount_cents: 4200, currency: 'EUR', card_token: 'tok_4242424242424242', description: 'March' };

describe('sensitive arguments', () => {
  it('seals exactly the arguments the contract marks sensitive, bound to the execution and argument', () => {
    const stored = sealSensitiveArguments(charge, EXE, args, sealer);
    expect(stored).toEqual({ ...args, card_token: { $sealed: `test:${EXE}:card_token:"tok_4242424242424242"` } });
  });

  it('opens sealed values and passes clear ones (events stored before sealing) through unchanged', () => {
    expect(openSealedArguments(EXE, sealSensitiveArguments(charge, EXE, args, sealer), sealer)).toEqual({ ok: true, arguments: args });
    expect(openSealedArguments(EXE, args, sealer)).toEqual({ ok: true, arguments: args });
  });

  it('answers a value that does not open with the reason, never a value', () => {
    const moved = sealSensitiveArguments(charge, 'exe_01J4K8J7DX7V0000000000000B', args, sealer);
    const opened = openSealedArguments(EXE, moved, sealer);
    expect(opened).toEqual({ ok: false, reason: `sensitive argument "card_token" of ${EXE}: bound elsewhere` });
  });

  it('redacts sensitive arguments whether sealed or clear, and every argument when the contract is unknown', () => {
    const expected = { ...args, card_token: REDACTED };
    expect(redactSensitiveArguments(charge, args)).toEqual(expected);
    expect(redactSensitiveArguments(charge, sealSensitiveArguments(charge, EXE, args, sealer))).toEqual(expected);
    expect(redactSensitiveArguments(undefined, { customer_id: 'cus_1' })).toEqual({ customer_id: REDACTED });
    // A sealed value is never shown, even under an argument the contract no longer marks sensitive.
    expect(redactSensitiveArguments(charge, { description: { $sealed: 'x' } })).toEqual({ description: REDACTED });
  });
});
