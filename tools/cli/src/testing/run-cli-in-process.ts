import { PassThrough } from 'node:stream';
import { runCli } from '../cli/run-cli';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one command line in this process with captured output and the given environment only. */
export async function runOnceport(argv: readonly string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const capture = (): { stream: PassThrough; text: () => string } => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return { stream, text: () => text };
  };
  const [out, err] = [capture(), capture()];
  const code = await runCli(argv, { stdout: out.stream, stderr: err.stream, env });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out.text(), stderr: err.text() };
}
