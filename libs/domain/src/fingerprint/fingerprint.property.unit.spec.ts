// Properties of the intent fingerprint (DESIGN.md §2): what must not change it, what must, and
// what must never leak into it.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { JsonValue } from '@onceport/contracts';
import { httpTool, parseOne } from '../../test/contract-builders';
import type { ToolContract } from '../tool-contracts';
import { buildCanonicalRecord } from './canonical-record';
import { fingerprint, fingerprintIntent, sensitiveHmacWith } from './fingerprint';
import type { Keyring } from './keyring';

const contract = parseOne(
  httpTool({
    name: 'pay_invoice',
    credential_ref: 'payments-live',
    arguments: {
      type: 'object',
      properties: {
        account: { type: 'string' },
        recipient: { type: 'string' },
        amount: { type: 'integer' },
        priority: { type: 'string', enum: ['low', 'normal', 'high'], default: 'normal' },
        attachment: { type: 'object', properties: { sha256: { type: 'string' }, bytes: { type: 'integer' } } },
        card: { type: 'string' },
        subject: { type: 'string' },
        body: { type: 'string' },
      },
      required: ['account', 'recipient', 'amount', 'attachment', 'card'],
    },
    roles: {
      account: 'identity',
      recipient: { role: 'identity', normalize: ['email'] },
      amount: 'identity',
      priority: 'identity',
      // The agent's own description of a file: identity (a digest the gateway computes is `derive: sha256`, derived-arguments.property.unit.spec.ts).
      attachment: 'identity',
      card: { role: 'identity', sensitive: true },
      subject: 'generated',
      body: 'generated',
    },
  }),
);
const keyring: Keyring = { activeKeyId: 'k1', keys: { k1: randomBytes(32) } };

type Args = Record<string, JsonValue>;
interface Call {
  contract: ToolContract;
  actor: string;
  intentScope: string;
  arguments: Args;
}

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);
const argsArb: fc.Arbitrary<Args> = fc
  .record(
    {
      account: word.map((w) => `acct-${w}`),
      recipient: fc.tuple(word, word).map(([local, domain]) => `${local}@${domain}.example`),
      amount: fc.integer({ min: -1_000_000, max: 1_000_000 }),
      priority: fc.constantFrom('low', 'normal', 'high'),
      attachment: fc.record({ sha256: fc.stringMatching(/^[0-9a-f]{64}$/), bytes: fc.nat() }),
      card: fc.stringMatching(/^[A-Z0-9]{16,32}$/).map((s) => `tok_${s}`),
      subject: fc.string(),
      body: fc.string(),
    },
    { requiredKeys: ['account', 'recipient', 'amount', 'attachment', 'card'] },
  )
  .map((args) => args as Args);
const callArb: fc.Arbitrary<Call> = fc
  .record({ actor: word.map((w) => `agent:${w}`), intentScope: word.map((w) => `run_${w}`), arguments: argsArb })
  .map((c) => ({ ...c, contract }));

const fp = (call: Call, ring: Keyring = keyring): string => fingerprintIntent(call, ring).fingerprint;
const withArgs = (call: Call, args: Args): Call => ({ ...call, arguments: args });

/** The same object with its keys (and nested keys) in another order. */
const permuted = (args: Args): fc.Arbitrary<Args> =>
  fc.tuple(fc.shuffledSubarray(Object.keys(args), { minLength: Object.keys(args).length }), fc.boolean()).map(([order, flipNested]) => {
    const out: Args = {};
    for (const key of order) out[key] = args[key] as JsonValue;
    const attachment = args['attachment'] as { sha256: string; bytes: number };
    out['attachment'] = flipNested ? { bytes: attachment.bytes, sha256: attachment.sha256 } : attachment;
    return out;
  });

describe('fingerprint properties', () => {
  describe('does not change under', () => {
    it('the key order of the arguments', () => {
      fc.assert(
        fc.property(
          callArb.chain((call) => fc.tuple(fc.constant(call), permuted(call.arguments))),
          ([call, reordered]) => {
            expect(fp(withArgs(call, reordered))).toBe(fp(call));
          },
        ),
      );
    });

    it('the JSON whitespace the arguments arrived with', () => {
      fc.assert(
        fc.property(callArb, fc.stringMatching(/^[ \t\n\r]{0,10}$/), (call, indent) => {
          const reparsed = JSON.parse(JSON.stringify(call.arguments, null, indent)) as Args;
          expect(fp(withArgs(call, reparsed))).toBe(fp(call));
        }),
      );
    });

    it('omitting an argument versus passing its declared default', () => {
      fc.assert(
        fc.property(callArb, (call) => {
          const { priority: _omitted, ...without } = call.arguments;
          expect(fp(withArgs(call, without))).toBe(fp(withArgs(call, { ...without, priority: 'normal' })));
        }),
      );
    });

    it('any change of a generated argument, including adding or removing it', () => {
      fc.assert(
        fc.property(callArb, fc.option(fc.string()), fc.option(fc.string()), (call, subject, body) => {
          const { subject: _s, body: _b, ...rest } = call.arguments;
          const redrafted: Args = { ...rest, ...(subject === null ? {} : { subject }), ...(body === null ? {} : { body }) };
          expect(fp(withArgs(call, redrafted))).toBe(fp(call));
        }),
      );
    });

    it('a declared equivalent spelling (e-mail case and surrounding spaces)', () => {
      fc.assert(
        fc.property(
          callArb,
          fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
          fc.stringMatching(/^ {0,3}$/),
          (call, upper, pad) => {
            const recipient = [...String(call.arguments['recipient'])].map((c, i) => (upper[i % 40] ? c.toUpperCase() : c)).join('');
            expect(fp(withArgs(call, { ...call.arguments, recipient: `${pad}${recipient}${pad}` }))).toBe(fp(call));
          },
        ),
      );
    });
  });

  describe('changes when', () => {
    const recordedFields = ['account', 'recipient', 'amount', 'priority', 'attachment', 'card'] as const;

    it('any identity or derived argument changes', () => {
      fc.assert(
        fc.property(callArb, argsArb, fc.constantFrom(...recordedFields), (call, other, field) => {
          const before = call.arguments[field] ?? 'normal';
          const after = other[field] ?? 'normal';
          fc.pre(JSON.stringify(before).toLowerCase() !== JSON.stringify(after).toLowerCase());
          expect(fp(withArgs(call, { ...call.arguments, [field]: after }))).not.toBe(fp(call));
        }),
      );
    });

    it('the actor changes', () => {
      fc.assert(
        fc.property(callArb, word, (call, other) => {
          fc.pre(`agent:${other}` !== call.actor);
          expect(fp({ ...call, actor: `agent:${other}` })).not.toBe(fp(call));
        }),
      );
    });

    it('the intent scope changes', () => {
      fc.assert(
        fc.property(callArb, word, (call, other) => {
          fc.pre(`run_${other}` !== call.intentScope);
          expect(fp({ ...call, intentScope: `run_${other}` })).not.toBe(fp(call));
        }),
      );
    });

    it('the target changes: origin, method or path template', () => {
      const http = contract.channel === 'http' ? contract : null;
      if (!http) throw new Error('expected an HTTP contract');
      const targets = fc.oneof(
        fc.domain().map((d) => ({ ...http.target, origin: `https://${d}` })),
        fc.constantFrom('PUT', 'PATCH', 'DELETE').map((method) => ({ ...http.target, method }) as typeof http.target),
        word.map((w) => ({ ...http.target, path: `/v1/${w}` })),
      );
      fc.assert(
        fc.property(callArb, targets, (call, target) => {
          fc.pre(JSON.stringify(target) !== JSON.stringify(http.target));
          expect(fp({ ...call, contract: { ...http, target } })).not.toBe(fp(call));
        }),
      );
    });

    it('the credential reference changes', () => {
      fc.assert(
        fc.property(callArb, fc.option(word), (call, ref) => {
          fc.pre(ref !== contract.credentialRef);
          expect(fp({ ...call, contract: { ...contract, credentialRef: ref } })).not.toBe(fp(call));
        }),
      );
    });
  });

  it('never lets a secret into the record or the fingerprint: not the HMAC key, not a sensitive value', () => {
    fc.assert(
      fc.property(callArb, fc.uint8Array({ minLength: 32, maxLength: 64 }), (call, key) => {
        const ring: Keyring = { activeKeyId: 'rotating.key-1', keys: { 'rotating.key-1': key } };
        const record = buildCanonicalRecord({ ...call, hmacForSensitive: sensitiveHmacWith(ring) });
        const output = `${JSON.stringify(record)}\n${fingerprint(record, ring)}\n${fingerprintIntent(call, ring).matching.join()}`;
        const keyBuffer = Buffer.from(key);
        for (const form of [keyBuffer.toString('hex'), keyBuffer.toString('base64'), keyBuffer.toString('base64url')]) {
          expect(output).not.toContain(form);
        }
        expect(output).not.toContain(String(call.arguments['card']));
        expect(output).not.toContain(String(call.arguments['card']).slice(4));
        expect(record.arguments['card']).toEqual({ $hmac: expect.stringMatching(/^hmac-sha256:rotating\.key-1:[0-9a-f]{64}$/) });
      }),
    );
  });
});
