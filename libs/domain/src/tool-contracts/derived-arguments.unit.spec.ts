// Issue 16, "derived arguments are derived by the gateway": the record holds what the gateway
// computed (a file's SHA-256, a normalised URL), never the agent's claim; the raw value still goes
// to the target.
import { createHash } from 'node:crypto';
import { contractsYaml, httpTool, issuesOf, parseOne } from '../../test/contract-builders';
import { buildCanonicalRecord } from '../fingerprint';
import { normalizedUrl } from './derive-argument';
import { validateArguments } from './validate-arguments';

const importFile = (roles: Record<string, unknown> = {}, properties: Record<string, unknown> = {}) =>
  httpTool({
    name: 'import_file',
    arguments: {
      type: 'object',
      properties: {
        file_name: { type: 'string' },
        content: { type: 'string', contentEncoding: 'base64' },
        content_sha256: { type: 'string' },
        source_url: { type: 'string' },
        ...properties,
      },
      required: ['file_name', 'content'],
    },
    roles: {
      file_name: 'identity',
      content: { role: 'derived', derive: 'sha256' },
      content_sha256: { role: 'derived', derive: 'sha256', from: 'content' },
      source_url: { role: 'derived', derive: 'normalized_url' },
      ...roles,
    },
  });
const FILE_BYTES = Buffer.from('%PDF-1.7 quarterly report\n');
const CONTENT = FILE_BYTES.toString('base64');
const DIGEST = `sha256:${createHash('sha256').update(FILE_BYTES).digest('hex')}`;
const record = (args: Record<string, unknown>, tool = importFile()) =>
  buildCanonicalRecord({ contract: parseOne(tool), actor: 'agent:a', intentScope: 'run_1', arguments: args, hmacForSensitive: () => 'x' });
const pathsOf = (tool: Record<string, unknown>) => issuesOf(contractsYaml(tool)).map((i) => [i.path, i.code]);

describe('derived arguments: the contract', () => {
  it('parses derive and from into the spec (from defaults to the argument itself)', () => {
    const specs = parseOne(importFile()).argumentSpecs;
    expect(specs['content']?.derivation).toEqual({ kind: 'sha256', from: 'content' });
    expect(specs['content_sha256']?.derivation).toEqual({ kind: 'sha256', from: 'content' });
    expect(specs['source_url']?.derivation).toEqual({ kind: 'normalized_url', from: 'source_url' });
    expect(specs['file_name']?.derivation).toBeNull();
  });

  it('refuses a bare derived role (it would record the agent’s claim), naming the file, the argument and the fix', () => {
    const [issue, ...rest] = issuesOf(contractsYaml(importFile({ content_sha256: 'derived' })));
    expect(rest).toEqual([]);
    expect(issue?.message).toMatch(
      /^contracts\/test\.yaml: tools\[0\]\.roles\.content_sha256: got role derived without a derivation .*; expected derive: sha256 .* or derive: normalized_url, with from: <argument> .*; or role identity/,
    );
  });

  it('refuses an unknown derivation, a from naming no argument, and from or derive on another role', () => {
    expect(issuesOf(contractsYaml(importFile({ content: { role: 'derived', derive: 'md5' } })))[0]?.message).toContain(
      'tools[0].roles.content.derive: got "md5"; expected one of sha256 | normalized_url',
    );
    const missing = issuesOf(contractsYaml(importFile({ content_sha256: { role: 'derived', derive: 'sha256', from: 'body' } })));
    expect(missing.map((i) => i.message)).toEqual([
      'contracts/test.yaml: tools[0].roles.content_sha256.from: got from: "body", which arguments.properties does not declare; expected one of the declared arguments (file_name | content | content_sha256 | source_url) (line 33)',
    ]);
    expect(pathsOf(importFile({ file_name: { role: 'identity', derive: 'sha256' } }))).toEqual([
      ['tools[0].roles.file_name.derive', 'invalid_field'],
    ]);
    expect(pathsOf(importFile({ file_name: { role: 'identity', from: 'content' } }))).toEqual([
      ['tools[0].roles.file_name.from', 'invalid_field'],
    ]);
  });

  it('refuses a derivation over a non-text argument, an unknown contentEncoding, normalize beside derive', () => {
    expect(pathsOf(importFile({}, { content: { type: 'object' } }))).toEqual([
      ['tools[0].roles.content.derive', 'invalid_field'],
      ['tools[0].roles.content_sha256.from', 'invalid_field'],
    ]);
    expect(pathsOf(importFile({}, { content: { type: 'string', contentEncoding: 'base32' } }))).toEqual([
      ['tools[0].arguments.properties.content.contentEncoding', 'invalid_field'],
    ]);
    expect(pathsOf(importFile({ source_url: { role: 'derived', derive: 'normalized_url', normalize: ['trim'] } }))).toEqual([
      ['tools[0].roles.source_url.normalize', 'invalid_field'],
    ]);
  });

  it('refuses a file recorded whole beside its digest (the record is bounded: a file is hashed, never copied)', () => {
    const [issue] = issuesOf(contractsYaml(importFile({ content: 'identity' })));
    expect(issue).toMatchObject({ path: 'tools[0].roles.content', code: 'invalid_field' });
    expect(issue?.expected).toContain('{ role: derived, derive: sha256 } or generated for "content"');
  });
});

describe('derived arguments: the record and the call', () => {
  it('records the digest the gateway computed over the decoded bytes, never the file, and keeps the raw value for the target', () => {
    const args = { file_name: 'q3.pdf', content: CONTENT };
    const validated = validateArguments(parseOne(importFile()), args);
    expect(validated).toEqual({ ok: true, value: args, derived: { content: DIGEST, content_sha256: DIGEST } });
    expect(record(args).arguments).toEqual({ content: DIGEST, content_sha256: DIGEST, file_name: 'q3.pdf' });
  });

  it('reads base64 as bytes (line breaks and padding are spelling) and a text argument as its UTF-8 bytes', () => {
    const wrapped = `${CONTENT.slice(0, 8)}\r\n${CONTENT.slice(8)}`;
    expect(record({ file_name: 'a', content: wrapped }).arguments['content']).toBe(DIGEST);
    const text = importFile({}, { content: { type: 'string' } });
    expect(record({ file_name: 'a', content: 'héllo' }, text).arguments['content']).toBe(
      `sha256:${createHash('sha256').update('héllo', 'utf8').digest('hex')}`,
    );
  });

  it('accepts an agent’s digest that agrees (hex or sha256:hex, any case) and refuses one that does not', () => {
    const hex = DIGEST.slice('sha256:'.length);
    for (const claim of [hex, hex.toUpperCase(), DIGEST]) {
      expect(record({ file_name: 'a', content: CONTENT, content_sha256: claim }).arguments['content_sha256']).toBe(DIGEST);
    }
    const lie = validateArguments(parseOne(importFile()), { file_name: 'a', content: CONTENT, content_sha256: '0'.repeat(64) });
    expect(lie).toEqual({
      ok: false,
      issues: [
        {
          path: '$.content_sha256',
          keyword: 'derived',
          message:
            "$.content_sha256: is not the SHA-256 of content's bytes (the gateway computes it): send that value, or leave content_sha256 out",
        },
      ],
    });
  });

  it('refuses a source that cannot be derived: not base64, not an absolute URL', () => {
    const contract = parseOne(importFile());
    const bad = validateArguments(contract, { file_name: 'a', content: 'not base64!', source_url: 'example.com/x' });
    expect(bad.ok ? [] : bad.issues.map((i) => i.message)).toEqual([
      '$.content: is not base64 (RFC 4648: A–Z a–z 0–9 + /, optional = padding)',
      '$.source_url: is not an absolute URL (e.g. https://example.com/path)',
    ]);
  });

  it('records a normalised URL: one spelling per resource', () => {
    const spelled = 'HTTPS://Files.Example.COM:443/a/./b/../report.pdf?v=2&a=1#page=3';
    expect(record({ file_name: 'a', content: CONTENT, source_url: spelled }).arguments['source_url']).toBe(
      'https://files.example.com/a/report.pdf?a=1&v=2',
    );
  });
});

describe('normalizedUrl', () => {
  it.each([
    ['http://example.com:80/x', 'http://example.com/x'],
    ['https://EXAMPLE.com/a/%7euser', 'https://example.com/a/%7euser'],
    ['https://example.com/?b=2&a=1&b=1', 'https://example.com/?a=1&b=2&b=1'],
    ['https://example.com/x?', 'https://example.com/x'],
    ['https://example.com/#frag', 'https://example.com/'],
    ['/relative/path', null],
  ])('%s → %s', (input, expected) => {
    expect(normalizedUrl(input)).toBe(expected);
  });
});
