import { createInterface } from 'node:readline';

/** What a command handler answers: a line to print, or `quit`. */
export type CommandResult = string | 'quit';

export type CommandHandler = (words: string[]) => Promise<CommandResult>;

/**
 * Reads commands from stdin, one per line, until `quit`, SIGINT or SIGTERM; then runs `shutdown`
 * once. A closed stdin (run in the background) does not stop it: only a signal or `quit` does.
 */
export async function runCommandLoop(handle: CommandHandler, shutdown: () => Promise<void>): Promise<void> {
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const lines = createInterface({ input: process.stdin, terminal: false });
  let queue = Promise.resolve();
  lines.on('line', (line) => {
    const words = line.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) return;
    // One command at a time, in the order typed.
    queue = queue.then(async () => {
      try {
        const result = await handle(words);
        if (result === 'quit') finish();
        else process.stdout.write(`${result}\n`);
      } catch (error: unknown) {
        process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    });
  });
  process.once('SIGINT', finish);
  process.once('SIGTERM', finish);
  await finished;
  lines.close();
  await queue;
  await shutdown();
}
