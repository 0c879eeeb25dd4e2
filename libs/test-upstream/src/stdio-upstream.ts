import { join } from 'node:path';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { ensureStateDir } from './state/files';
import { createUpstreamServer } from './upstream-server';
import { DEFAULT_TASK_DELAY_MS } from './state/tasks';

export const STATE_DIR_ENV = 'TEST_UPSTREAM_STATE_DIR';
/** Milliseconds until a `maybe_task` task completes, or `never`. */
export const TASK_DELAY_ENV = 'TEST_UPSTREAM_TASK_DELAY_MS';

const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');
const STDIO_MAIN = join(__dirname, 'stdio-main.ts');

/** How to start the stdio upstream: what a contract's `command`/`args`/`env` say, or a `StdioClientTransport`'s parameters. */
export interface StdioUpstreamCommand {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
}

/**
 * The command that runs the test upstream over stdio (node with `@swc-node/register`, absolute
 * paths, so any working directory will do).
 *
 * @example new StdioClientTransport(stdioUpstreamCommand(stateDir))
 */
export function stdioUpstreamCommand(stateDir: string, options: { taskDelayMs?: number | null } = {}): StdioUpstreamCommand {
  const delay = options.taskDelayMs === undefined ? DEFAULT_TASK_DELAY_MS : options.taskDelayMs;
  return {
    command: process.execPath,
    args: ['-r', require.resolve('@swc-node/register'), STDIO_MAIN],
    env: {
      [STATE_DIR_ENV]: stateDir,
      [TASK_DELAY_ENV]: delay === null ? 'never' : String(delay),
      SWC_NODE_PROJECT: join(WORKSPACE_ROOT, 'tsconfig.base.json'),
    },
  };
}

/** The stdio process's body: serves both eras on stdin/stdout until stdin closes. */
export function runStdioUpstream(env: NodeJS.ProcessEnv): void {
  const stateDir = env[STATE_DIR_ENV];
  if (!stateDir) throw new Error(`${STATE_DIR_ENV} must name the state directory`);
  ensureStateDir(stateDir);
  const rawDelay = env[TASK_DELAY_ENV] ?? String(DEFAULT_TASK_DELAY_MS);
  const taskDelayMs = rawDelay === 'never' ? null : Number(rawDelay);
  if (taskDelayMs !== null && !(Number.isInteger(taskDelayMs) && taskDelayMs >= 0))
    throw new Error(`${TASK_DELAY_ENV} must be a whole number of milliseconds or "never", got ${JSON.stringify(rawDelay)}`);
  const faults = {
    // The effect is in the ledger (a synchronous append): exiting now loses only the answer.
    cutAfterApply: () => process.exit(1),
    dieMidCall: () => process.exit(137),
  };
  serveStdio(({ era }) => createUpstreamServer({ stateDir, taskDelayMs, faults }, era), {
    onerror: (error) => process.stderr.write(`test-upstream: ${error.message}\n`),
  });
}
