import type { CapturedOutput } from './marker-report';

export interface OutputFacts {
  readonly exitStatus: number;
  readonly stdout: CapturedOutput;
  readonly stderr: CapturedOutput;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

/**
 * The stored result of a remote command, as the agent receives it. Output that is not valid UTF-8
 * is handed over in base64 rather than mangled; `*_truncated` says the cap cut it.
 */
export function outputDocument(facts: OutputFacts): Buffer {
  return Buffer.from(
    JSON.stringify({
      exit_status: facts.exitStatus,
      ...stream('stdout', facts.stdout),
      ...stream('stderr', facts.stderr),
      started_at: facts.startedAt,
      finished_at: facts.finishedAt,
    }),
  );
}

function stream(name: 'stdout' | 'stderr', output: CapturedOutput): Record<string, string | number | boolean> {
  const text = output.bytes.toString('utf8');
  const lossless = Buffer.from(text, 'utf8').equals(output.bytes);
  return {
    [name]: lossless ? text : output.bytes.toString('base64'),
    [`${name}_encoding`]: lossless ? 'utf8' : 'base64',
    [`${name}_bytes`]: output.total,
    [`${name}_truncated`]: output.total > output.bytes.length,
  };
}
