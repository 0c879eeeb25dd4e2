import { parseWrapperReply } from './marker-report';

const reply = (text: string): ReturnType<typeof parseWrapperReply> => parseWrapperReply(Buffer.from(text, 'latin1'));

describe('parseWrapperReply', () => {
  it('reads a completed report with raw output bytes (newlines and protocol-like text inside output stay output)', () => {
    const out = 'line\nonceport-marker end\n';
    const parsed = reply(
      `noise from a login profile\nonceport-marker started\nonceport-marker state completed\nonceport-marker started-at 2026-11-30T10:00:00Z\nonceport-marker finished-at 2026-11-30T10:00:02Z\nonceport-marker exit 0\nonceport-marker stdout ${out.length} ${out.length + 5}\n${out}onceport-marker stderr 0 0\nonceport-marker end\n`,
    );
    expect(parsed).toMatchObject({ started: true, refused: false, error: null });
    expect(parsed.report).toMatchObject({
      state: 'completed',
      exitStatus: 0,
      startedAt: '2026-11-30T10:00:00Z',
      finishedAt: '2026-11-30T10:00:02Z',
      stdout: { total: out.length + 5 },
    });
    expect(parsed.report?.state === 'completed' && parsed.report.stdout.bytes.toString()).toBe(out);
  });

  it('reads absent, running and unreadable states', () => {
    expect(reply('onceport-marker state absent\nonceport-marker end\n').report).toEqual({ state: 'absent' });
    expect(reply('onceport-marker state running\nonceport-marker started-at T\nonceport-marker end\n').report).toEqual({
      state: 'running',
      startedAt: 'T',
    });
    expect(reply('onceport-marker state unreadable started-without-exit-status\nonceport-marker end\n').report).toEqual({
      state: 'unreadable',
      why: 'started-without-exit-status',
    });
  });

  it('gives no report for anything incomplete or inconsistent, so nothing is misread as "absent"', () => {
    expect(reply('onceport-marker state absent\n').report).toBeNull();
    expect(reply('onceport-marker state completed\nonceport-marker exit 0\nonceport-marker stdout 5 5\nab').report).toBeNull();
    expect(
      reply('onceport-marker state completed\nonceport-marker exit 0\nonceport-marker stdout 6 5\nabcdef\nonceport-marker end\n').report,
    ).toBeNull();
    expect(reply('onceport-marker state completed\nonceport-marker exit 0\nonceport-marker end\n').report).toBeNull();
    expect(reply('onceport-marker state sideways\nonceport-marker end\n').report).toBeNull();
  });

  it('calls an exit file that holds no status unreadable', () => {
    expect(
      reply(
        'onceport-marker state completed\nonceport-marker exit \nonceport-marker stdout 0 0\nonceport-marker stderr 0 0\nonceport-marker end\n',
      ).report,
    ).toMatchObject({ state: 'unreadable' });
  });

  it('reads the run-only lines: error, refused', () => {
    expect(reply('onceport-marker error cannot-create-marker-dir\n')).toMatchObject({
      error: 'cannot-create-marker-dir',
      started: false,
      report: null,
    });
    expect(reply('onceport-marker refused already-started\n')).toMatchObject({ refused: true, started: false });
  });
});
