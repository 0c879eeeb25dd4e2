// Properties of derived arguments (issue 16): the same file is one intent however it is spelled,
// one changed byte is another, and a URL's normalised form is a fixed point.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { httpTool, parseOne } from '../../test/contract-builders';
import { fingerprintIntent, type Keyring } from '../fingerprint';
import { deriveArgument, normalizedUrl } from './derive-argument';

const contract = parseOne(
  httpTool({
    name: 'import_file',
    arguments: {
      type: 'object',
      properties: { folder: { type: 'string' }, content: { type: 'string', contentEncoding: 'base64' } },
      required: ['folder', 'content'],
    },
    roles: { folder: 'identity', content: { role: 'derived', derive: 'sha256' } },
  }),
);
const keyring: Keyring = { activeKeyId: 'k1', keys: { k1: randomBytes(32) } };
const fp = (bytes: Uint8Array, spell: (b64: string) => string = (b) => b): string =>
  fingerprintIntent(
    {
      contract,
      actor: 'agent:a',
      intentScope: 'run_1',
      arguments: { folder: 'inbox', content: spell(Buffer.from(bytes).toString('base64')) },
    },
    keyring,
  ).fingerprint;
const BASE64 = { type: 'string', contentEncoding: 'base64' };

/** MIME-style line breaks every `width` characters: another spelling of the same bytes. */
const wrapped = (width: number) => (b64: string) => b64.replace(new RegExp(`(.{${width}})`, 'g'), '$1\r\n');

describe('derived argument properties', () => {
  it('same bytes → same digest and same fingerprint, whatever the base64 line wrapping', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.integer({ min: 4, max: 76 }), (bytes, width) => {
        const digest = deriveArgument('sha256', Buffer.from(bytes).toString('base64'), BASE64);
        expect(deriveArgument('sha256', wrapped(width)(Buffer.from(bytes).toString('base64')), BASE64)).toEqual(digest);
        expect(fp(bytes, wrapped(width))).toBe(fp(bytes));
      }),
    );
  });

  it('one byte changed → a different digest and a different fingerprint', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 2048 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, delta) => {
        const changed = Uint8Array.from(bytes);
        const index = at % changed.length;
        changed[index] = ((changed[index] ?? 0) + delta) % 256;
        expect(fp(changed)).not.toBe(fp(bytes));
      }),
    );
  });

  it('the record holds a bounded digest, never the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 4096 }), (bytes) => {
        const b64 = Buffer.from(bytes).toString('base64');
        const { record } = fingerprintIntent(
          { contract, actor: 'agent:a', intentScope: 'run_1', arguments: { folder: 'x', content: b64 } },
          keyring,
        );
        expect(record.arguments['content']).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(JSON.stringify(record)).not.toContain(b64.slice(0, 64));
      }),
    );
  });

  it('a normalised URL normalises to itself, and query order or a fragment never changes it', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true, withFragments: true }),
        fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,4}$/), fc.stringMatching(/^[a-z0-9]{0,4}$/)), { maxLength: 4 }),
        (url, params) => {
          // Stable sort: only parameters of distinct names may be reordered.
          fc.pre(new Set(params.map(([name]) => name)).size === params.length);
          const once = normalizedUrl(url);
          if (once === null) return;
          expect(normalizedUrl(once)).toBe(once);
          const base = new URL(url);
          base.hash = '';
          base.search = new URLSearchParams(params).toString();
          const reversed = new URL(base.href);
          reversed.search = new URLSearchParams([...params].reverse()).toString();
          reversed.hash = 'elsewhere';
          expect(normalizedUrl(reversed.href)).toBe(normalizedUrl(base.href));
        },
      ),
    );
  });
});
