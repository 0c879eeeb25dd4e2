/** Where a command writes and what environment it reads; the real process or a test's buffers. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function println(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}

export function printJson(io: CliIo, value: unknown): void {
  println(
    io.stdout,
    JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2),
  );
}
