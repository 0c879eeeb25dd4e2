// The upcasting mechanism, exercised with a v1 → v2 → v3 chain that exists only in this test.
import { z } from 'zod';
import { defineEvent } from './event-definition';
import { createEventRegistry } from './event-registry';
import { pastVersion } from './past-version';
import { metadata } from './testing/samples';

// v1: { amount } in whole euros. v2: { amountCents }. v3: { amountCents, currency }.
const DataV1 = z.object({ amount: z.number().int() });
const DataV2 = z.object({ amountCents: z.number().int() });
const DataV3 = z.object({ amountCents: z.number().int(), currency: z.string().length(3) });

const PaymentSentV3 = defineEvent('PaymentSent', 3, DataV3);
const chain = [
  pastVersion(1, DataV1, (v1) => ({ amountCents: v1.amount * 100 })),
  pastVersion(2, DataV2, (v2) => ({ ...v2, currency: 'EUR' })),
];
const registry = createEventRegistry([{ current: PaymentSentV3, past: chain }]);

const envelope = (schemaVersion: number, data: unknown) => ({ type: 'PaymentSent', schemaVersion, data, metadata });

describe('upcasting on read', () => {
  it('lifts v1 and v2 data to the current version, and says so in schemaVersion', () => {
    expect(registry.parse(envelope(1, { amount: 12 }))).toEqual({ ...envelope(3, { amountCents: 1200, currency: 'EUR' }) });
    expect(registry.parse(envelope(2, { amountCents: 1250 })).data).toEqual({ amountCents: 1250, currency: 'EUR' });
    expect(registry.parse(envelope(3, { amountCents: 1, currency: 'USD' })).data).toEqual({ amountCents: 1, currency: 'USD' });
  });

  it('validates old data against its own version, naming that version and the path', () => {
    const result = registry.safeParse(envelope(1, { amount: 'twelve' }));
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toMatchObject({ code: 'invalid_event_data', eventType: 'PaymentSent', schemaVersion: 1 });
    expect(result.error.issues[0]?.path).toBe('data.amount');
    expect(result.error.message).toMatch(/^PaymentSent v1: .*data\.amount/);
  });

  it('blames the upcaster when its output does not satisfy the next version', () => {
    const broken = createEventRegistry([{ current: PaymentSentV3, past: [pastVersion(1, DataV1, () => ({ cents: 1 })), chain[1]!] }]);
    expect(broken.safeParse(envelope(1, { amount: 1 }))).toMatchObject({
      success: false,
      error: { code: 'upcast_failed', schemaVersion: 2 },
    });
  });

  it('reports an upcaster that throws', () => {
    const throwing = createEventRegistry([
      {
        current: PaymentSentV3,
        past: [
          pastVersion(1, DataV1, () => {
            throw new Error('boom');
          }),
          chain[1]!,
        ],
      },
    ]);
    expect(() => throwing.parse(envelope(1, { amount: 1 }))).toThrow('PaymentSent v1: upcaster v1→v2 threw: boom');
  });

  it('refuses versions newer than the reader', () => {
    expect(registry.safeParse(envelope(4, {}))).toMatchObject({
      success: false,
      error: { code: 'unknown_schema_version', schemaVersion: 4 },
    });
    expect(registry.currentVersion('PaymentSent')).toBe(3);
    expect(registry.currentVersion('Unknown')).toBeUndefined();
  });

  it('refuses at construction a chain with a gap, or a type registered twice', () => {
    expect(() => createEventRegistry([{ current: PaymentSentV3, past: [chain[0]!] }])).toThrow(
      'PaymentSent v3 needs upcasters for versions [1, 2]',
    );
    expect(() =>
      createEventRegistry([
        { current: PaymentSentV3, past: chain },
        { current: PaymentSentV3, past: chain },
      ]),
    ).toThrow('registered twice');
    expect(() => defineEvent('PaymentSent', 0, DataV1)).toThrow(RangeError);
  });
});
