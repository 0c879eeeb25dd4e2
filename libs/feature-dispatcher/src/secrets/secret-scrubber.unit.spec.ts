import { jsonLinesLog } from '../logging/dispatcher-log';
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
});

describe('jsonLinesLog', () => {
  it('writes one JSON line per call, scrubbed before encoding (quotes in a credential cannot hide it)', () => {
    const lines: string[] = [];
    const log = jsonLinesLog('dispatcher', 'info', new SecretScrubber(['pa"ss\\word']), (line) => lines.push(line));
    log('warn', 'target echoed pa"ss\\word', { reason: 'x pa"ss\\word y', attempt: 2 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'warn', service: 'dispatcher', message: 'target echoed [redacted]', reason: 'x [redacted] y', attempt: 2 });
  });

  it('drops lines below LOG_LEVEL', () => {
    const lines: string[] = [];
    const log = jsonLinesLog('dispatcher', 'warn', new SecretScrubber(), (line) => lines.push(line));
    log('info', 'quiet');
    log('error', 'loud');
    expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual(['loud']);
  });
});
