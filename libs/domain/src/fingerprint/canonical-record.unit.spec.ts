import { httpTool, parseOne, sshTool } from '../../test/contract-builders';
import { demoContract } from '../../test/demo-contracts';
import { buildCanonicalRecord } from './canonical-record';
import { FingerprintError } from './fingerprint-error';

const hmacForSensitive = (canonicalValue: string): string => `digest-of-${canonicalValue.length}-chars`;
const base = { actor: 'agent:billing-bot', intentScope: 'run_2024_11_30', hmacForSensitive };

describe('buildCanonicalRecord', () => {
  it('builds the record of an HTTP call: identity args only, defaults filled, sensitive digested, keys sorted', () => {
    const record = buildCanonicalRecord({
      ...base,
      contract: demoContract('charge_payment'),
      arguments: { description: 'Invoice 42', card_token: 'tok_visa_4242', amount_cents: 1999, customer_id: 'cus_A1' },
    });
    expect(record).toEqual({
      actor: 'agent:billing-bot',
      arguments: { amount_cents: 1999, card_token: { $hmac: 'digest-of-15-chars' }, currency: 'EUR', customer_id: 'cus_A1' },
      channel: 'http',
      credential_ref: 'payments-live',
      intent_scope: 'run_2024_11_30',
      method: 'POST /v1/charges',
      target: 'https://api.payments.example.com',
      tool: 'charge_payment',
    });
    expect(Object.keys(record)).toEqual([...Object.keys(record)].sort());
    expect(Object.keys(record.arguments)).toEqual(['amount_cents', 'card_token', 'currency', 'customer_id']);
  });

  it('applies declared normalisations and drops generated text', () => {
    const record = buildCanonicalRecord({
      ...base,
      contract: demoContract('send_email'),
      arguments: { recipient: '  Ana.Silva@Example.COM ', campaign_id: 'winter', subject: 'Hi', body: 'Hello Ana' },
    });
    expect(record.arguments).toEqual({ campaign_id: 'winter', recipient: 'ana.silva@example.com' });
  });

  it('normalises URLs the WHATWG way', () => {
    const contract = parseOne(
      httpTool({
        arguments: { type: 'object', properties: { page: { type: 'string' } }, required: ['page'] },
        roles: { page: { role: 'identity', normalize: ['url'] } },
      }),
    );
    const record = buildCanonicalRecord({ ...base, contract, arguments: { page: ' HTTPS://Example.COM:443/a/../b?q=1 ' } });
    expect(record.arguments).toEqual({ page: 'https://example.com/b?q=1' });
  });

  it('names an SSH target as ssh://user@host:port with method exec', () => {
    const record = buildCanonicalRecord({ ...base, contract: parseOne(sshTool()), arguments: { version: '42' } });
    expect(record).toMatchObject({ channel: 'ssh', target: 'ssh://deploy@db1.internal:22', method: 'exec', credential_ref: 'ssh-deploy' });
  });

  it('treats arguments admitted by additionalProperties as identity', () => {
    const contract = parseOne(
      httpTool({
        arguments: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'], additionalProperties: true },
        roles: { sku: 'identity' },
      }),
    );
    expect(buildCanonicalRecord({ ...base, contract, arguments: { sku: 'a', extra: { z: 1, a: 2 } } }).arguments).toEqual({
      extra: { a: 2, z: 1 },
      sku: 'a',
    });
  });

  it('refuses arguments the schema refuses, with the JSON paths', () => {
    try {
      buildCanonicalRecord({ ...base, contract: demoContract('get_build_status'), arguments: { build_id: 'x', other: 1 } });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(FingerprintError);
      expect((error as FingerprintError).code).toBe('INVALID_ARGUMENTS');
      expect((error as FingerprintError).argumentIssues.map((i) => i.path).sort()).toEqual(['$.build_id', '$.other']);
    }
  });

  it('refuses an empty actor or intent scope', () => {
    expect(() =>
      buildCanonicalRecord({ ...base, actor: '', contract: demoContract('get_build_status'), arguments: { build_id: 1 } }),
    ).toThrow('actor: got an empty value');
    expect(() =>
      buildCanonicalRecord({ ...base, intentScope: ' ', contract: demoContract('get_build_status'), arguments: { build_id: 1 } }),
    ).toThrow('intentScope: got an empty value');
  });
});
