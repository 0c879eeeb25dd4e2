import { parseArgs } from 'node:util';
import { NatsServer } from '../servers/nats-server';
import { PostgresCluster, type ShutdownMode } from '../servers/postgres-cluster';
import { type CommandResult, runCommandLoop } from './command-loop';
import { USAGE, UsageError } from './usage';

function port(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) throw new UsageError(`--port "${text}" is not a TCP port`);
  return value;
}

function common(words: string[]): CommandResult | null {
  if (words[0] === 'help') return USAGE;
  if (words[0] === 'quit') return 'quit';
  return null;
}

/** `nats [--port N] [--store-dir DIR]`: a private nats-server to kill, pause and restart by hand. */
export async function natsCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' }, 'store-dir': { type: 'string' } } });
  const nats = await NatsServer.start({ port: port(values.port), storeDir: values['store-dir'] });
  process.stdout.write(`nats-server ready at ${nats.url} (store ${nats.storeDir})\n`);
  const actions: Record<string, () => Promise<string>> = {
    kill: async () => `killed: ${JSON.stringify(await nats.kill())}`,
    pause: async () => (await nats.pause(), 'paused (SIGSTOP)'),
    resume: async () => (await nats.resume(), 'resumed (SIGCONT)'),
    restart: async () => (await nats.restart(), `restarted at ${nats.url}`),
    restart_wiped: async () => (await nats.restartWiped(), `restarted with an empty store at ${nats.url}`),
    status: async () => `nats-server ${nats.running ? `running, pid ${nats.pid}` : 'not running'} at ${nats.url}`,
  };
  await runCommandLoop(
    async (words) => common(words) ?? (await run(actions, words)),
    () => nats.stop(),
  );
}

/** `postgres [--port N]`: a private cluster to crash (immediate stop) and restart by hand. */
export async function postgresCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' } } });
  const cluster = await PostgresCluster.create({ port: port(values.port) });
  process.stdout.write(`PostgreSQL ready at ${cluster.url()} (data ${cluster.dataDir}, log ${cluster.logFile})\n`);
  const mode = (word: string | undefined): ShutdownMode => {
    if (word === undefined) return 'fast';
    if (word === 'smart' || word === 'fast' || word === 'immediate') return word;
    throw new UsageError(`shutdown mode "${word}" is not smart, fast or immediate`);
  };
  const actions: Record<string, (argument?: string) => Promise<string>> = {
    stop_immediate: async () => (await cluster.stop('immediate'), 'stopped (immediate: crash-like, no checkpoint)'),
    stop: async (argument) => (await cluster.stop(mode(argument)), `stopped (${mode(argument)})`),
    start: async () => (await cluster.start(), `started at ${cluster.url()}`),
    restart: async (argument) => (await cluster.restart(mode(argument)), `restarted (${mode(argument)}) at ${cluster.url()}`),
    status: async () => `PostgreSQL ${cluster.running ? 'running' : 'stopped'} at ${cluster.url()}`,
  };
  await runCommandLoop(
    async (words) => common(words) ?? (await run(actions, words)),
    () => cluster.destroy(),
  );
}

async function run(actions: Record<string, (argument?: string) => Promise<string>>, words: string[]): Promise<string> {
  const action = actions[words[0] ?? ''];
  if (!action) throw new UsageError(`unknown command "${words.join(' ')}" (type help)`);
  return action(words[1]);
}
