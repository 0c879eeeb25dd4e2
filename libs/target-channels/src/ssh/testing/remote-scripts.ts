import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A command for the host that leaves evidence: each run appends one line to `<dir>/runs/<tag>`,
 * then prints its arguments (NUL-terminated, so any byte survives), sleeps, and exits with a
 * status — all chosen by the test through its argv: `record-run <tag> <sleep-s> <exit> [args…]`.
 */
export function installRecordRun(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(join(dir, 'runs'), { recursive: true });
  mkdirSync(bin, { recursive: true });
  const path = join(bin, 'record-run');
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo "run $$" >>'${join(dir, 'runs')}'/"$1"`,
      'tag=$1; pause=$2; status=$3; shift 3',
      'for a in "$@"; do printf \'%s\\0\' "$a"; done',
      'echo "stderr of $tag" >&2',
      'if [ "$pause" != 0 ]; then sleep "$pause"; fi',
      'exit "$status"',
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  chmodSync(dir, 0o755);
  return path;
}

/** How many times the command tagged `tag` really ran on the host. */
export function runsOf(dir: string, tag: string): number {
  const file = join(dir, 'runs', tag);
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('run ')).length;
}
