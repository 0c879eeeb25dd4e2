import { parseArgs } from 'node:util';
import { type DemoTarget, TestTargetError, startDemoTarget } from '@onceport/demo-target';

/**
 * Runs the test target as its own process: `--port N` (0 = any free port), `--host`,
 * `--idempotency-header`. Prints one line, `test-target listening on <url>`, once it accepts
 * connections (other processes wait for it), and stops cleanly on SIGINT/SIGTERM.
 */
export async function runTargetProcess(argv: readonly string[]): Promise<DemoTarget> {
  const options = readOptions(argv);
  const target = await startDemoTarget(options);
  process.stdout.write(`test-target listening on ${target.url}\n`);
  const shutdown = (): void => {
    target.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`test-target: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  return target;
}

function readOptions(argv: readonly string[]): { port: number; host: string; idempotencyHeader: string } {
  let values: { port?: string; host?: string; 'idempotency-header'?: string };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { port: { type: 'string' }, host: { type: 'string' }, 'idempotency-header': { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    throw new TestTargetError(
      'invalid_arguments',
      `${error instanceof Error ? error.message : String(error)} (usage: --port N [--host H] [--idempotency-header NAME])`,
    );
  }
  const port = Number(values.port ?? '8787');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TestTargetError('invalid_arguments', `--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`);
  }
  return { port, host: values.host ?? '127.0.0.1', idempotencyHeader: values['idempotency-header'] ?? 'Idempotency-Key' };
}
