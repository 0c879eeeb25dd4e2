import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SecretScrubber } from '../secrets/secret-scrubber';
import { inSpan, initTracing } from '../tracing/tracing';
import { withExecutionId } from './log-context';
import { createLogger, serviceLog } from './service-logger';

function capture(
  level: string,
  scrubber?: SecretScrubber,
): { lines: () => Record<string, unknown>[]; raw: string[]; log: ReturnType<typeof serviceLog> } {
  const raw: string[] = [];
  const logger = createLogger({ level, destination: { write: (line: string) => void raw.push(line) }, ...(scrubber ? { scrubber } : {}) });
  const log = serviceLog('dispatcher', { logger, ...(scrubber ? { scrubber } : {}) });
  return { raw, log, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('the service log (pino)', () => {
  const tracing = initTracing({ serviceName: 'kit-test', env: {} });
  afterAll(() => tracing.shutdown());

  it('one JSON line with service, level as a word, message, time, and the fields', () => {
    const { lines, log } = capture('info');
    log('warn', 'target slow', { attempt: 2 });
    expect(lines()).toEqual([
      { level: 'warn', service: 'dispatcher', message: 'target slow', attempt: 2, time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
  });

  it('carries the trace id of the active span and the execution being handled, and redacts secrets', async () => {
    const secret = 'pa"ss\\word';
    const out = capture('info', new SecretScrubber([secret]));
    let traceId = '';
    await inSpan(
      tracing.tracer,
      'dispatch x',
      ROOT_CONTEXT,
      { 'onceport.execution_id': 'exe_01J4K8J7DX7V0000000000000A' },
      async (span) => {
        traceId = span.spanContext().traceId;
        out.log('error', `target echoed ${secret}`, {
          reason: `x ${secret} y`,
          headers: { authorization: 'Bearer op_live_123', accept: 'json' },
          apiKey: 'op_live_456',
        });
      },
    );
    expect(out.lines()).toEqual([
      expect.objectContaining({
        service: 'dispatcher',
        traceId,
        spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
        executionId: 'exe_01J4K8J7DX7V0000000000000A',
        message: 'target echoed [redacted]',
        reason: 'x [redacted] y',
        headers: { authorization: '[redacted]', accept: 'json' },
        apiKey: '[redacted]',
      }),
    ]);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(out.raw.join('')).not.toMatch(/pa.{0,2}ss|op_live/);
  });

  it('scrubs a known secret wherever it sits in the finished line, even inside an error', () => {
    const raw: string[] = [];
    const logger = createLogger({
      destination: { write: (line: string) => void raw.push(line) },
      scrubber: new SecretScrubber(['s3cr3t']),
    });
    logger.error({ err: new Error('connect to https://u:s3cr3t@host failed') }, 'nested');
    expect(raw).toHaveLength(1);
    expect(raw.join('')).not.toContain('s3cr3t');
  });

  it('the execution id set by a handler reaches lines after an await; a field of the same name wins', async () => {
    const { lines, log } = capture('info');
    await withExecutionId('exe_A', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      log('info', 'after await');
      log('info', 'explicit', { executionId: 'exe_B' });
    });
    log('info', 'outside');
    expect(lines().map((line) => [line['message'], line['executionId']])).toEqual([
      ['after await', 'exe_A'],
      ['explicit', 'exe_B'],
      ['outside', undefined],
    ]);
  });

  it('LOG_LEVEL=warn suppresses info and debug', () => {
    const { lines, log } = capture('warn');
    log('debug', 'chatter');
    log('info', 'quiet');
    log('warn', 'heads up');
    log('error', 'loud');
    expect(lines().map((line) => line['message'])).toEqual(['heads up', 'loud']);
  });

  it('an unknown LOG_LEVEL reads as info', () => {
    const { lines, log } = capture('verbose-ish');
    log('debug', 'chatter');
    log('info', 'said');
    expect(lines().map((line) => line['message'])).toEqual(['said']);
  });
});
