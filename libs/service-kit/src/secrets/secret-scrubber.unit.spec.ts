import { SecretScrubber } from './secret-scrubber';

describe('SecretScrubber', () => {
  it('masks every known credential, as given and URL-encoded, and learns new ones', () => {
    const scrubber = new SecretScrubber(['s3cr3t/value']);
    scrubber.remember('from-a-file');
    expect(scrubber.scrub('a s3cr3t/value, a s3cr3t%2Fvalue and from-a-file')).toBe('a [redacted], a [redacted] and [redacted]');
  });

  it('leaves text without credentials alone, and ignores an empty value', () => {
    const scrubber = new SecretScrubber(['']);
    expect(scrubber.scrub('nothing to hide')).toBe('nothing to hide');
  });

  it('also masks a credential as it reads inside an encoded JSON line', () => {
    const scrubber = new SecretScrubber(['pa"ss\\word']);
    expect(scrubber.scrub(JSON.stringify({ reason: 'x pa"ss\\word y' }))).toBe('{"reason":"x [redacted] y"}');
  });
});
