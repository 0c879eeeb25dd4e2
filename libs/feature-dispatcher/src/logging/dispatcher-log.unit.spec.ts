import { SecretScrubber } from '../secrets/secret-scrubber';
import { jsonLinesLog } from './dispatcher-log';

describe('jsonLinesLog', () => {
  it('writes one JSON line per call, scrubbed before encoding (quotes in a credential cannot hide it)', () => {
    const lines: string[] = [];
    const log = jsonLinesLog('dispatcher', 'info', new SecretScrubber(['pa"ss\\word']), (line) => lines.push(line));
    log('warn', 'target echoed pa"ss\\word', { reason: 'x pa"ss\\word y', attempt: 2 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'warn',
      service: 'dispatcher',
      message: 'target echoed [redacted]',
      reason: 'x [redacted] y',
      attempt: 2,
    });
  });

  it('drops lines below LOG_LEVEL', () => {
    const lines: string[] = [];
    const log = jsonLinesLog('dispatcher', 'warn', new SecretScrubber(), (line) => lines.push(line));
    log('info', 'quiet');
    log('error', 'loud');
    expect(lines.map((line) => (JSON.parse(line) as { message: string }).message)).toEqual(['loud']);
  });
});
