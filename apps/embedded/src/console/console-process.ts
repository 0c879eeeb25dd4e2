import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CONSOLE_PATHS } from './console-paths';
import { EX_SOFTWARE, StartFailure, portInUse } from '../start-failure';

export interface ConsoleProcessOptions {
  /** The embedded gateway's URL: intake, authorization and reconciler all answer there. */
  readonly gatewayUrl: string;
  readonly host: string;
  /** 0 picks a free one. */
  readonly port: number;
  readonly assetsDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
}

export interface ConsoleProcess {
  readonly url: string;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Its last words, kept for a start that fails (bounded: only what a failure message needs). */
const TAIL_BYTES = 4096;

/**
 * The console as its own process beside the embedded gateway, exactly as it runs in a deployment:
 * it serves the page and calls the gateway's HTTP APIs with the signed-in operator's admin key.
 * Resolves once it listens; a console that cannot start fails the start, naming the port variable
 * when the port is taken.
 */
export async function startConsoleProcess(options: ConsoleProcessOptions): Promise<ConsoleProcess> {
  const child = spawn(process.execPath, [...process.execArgv, '-r', require.resolve('./console-child-guard'), CONSOLE_PATHS.main], {
    env: {
      ...options.env,
      PORT: String(options.port),
      HOST: options.host,
      ONCEPORT_INTAKE_URL: options.gatewayUrl,
      ONCEPORT_AUTHORIZATION_URL: options.gatewayUrl,
      ONCEPORT_RECONCILER_URL: options.gatewayUrl,
      ONCEPORT_CONSOLE_ASSETS_DIR: options.assetsDir,
    },
    // stdout carries only its listening line; its logs join ours on stderr; the IPC channel is its parent's heartbeat.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    tail = (tail + chunk.toString()).slice(-TAIL_BYTES);
  });
  let stopping = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await listeningPort(child, options.port, () => tail).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  void exited.then(() => {
    if (!stopping) options.log(`onceport: the console exited (${describeExit(child)}); the gateway goes on serving`);
  });
  return {
    url: `http://${options.host}:${port}`,
    async stop(graceMs = 10_000) {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The port of the console's `listening` line, or why it stopped before printing one. */
function listeningPort(child: ChildProcess, port: number, lastWords: () => string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    child.once('exit', () => {
      const words = lastWords().trim();
      // Nest's listen() rejects with the errno in the message the console prints as it dies.
      const failure = Object.assign(new Error(words), { code: words.includes('EADDRINUSE') ? 'EADDRINUSE' : undefined });
      const taken = portInUse(failure, port, 'ONCEPORT_CONSOLE_PORT');
      reject(
        taken instanceof StartFailure
          ? taken
          : new StartFailure(
              `the console stopped before it served (${describeExit(child)}): ${words.slice(-1500)}`,
              'see its lines above; the console needs nothing but the gateway and its built page',
              EX_SOFTWARE,
            ),
      );
    });
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const said = /^\{"service":"console","event":"listening","port":(\d+)\}$/.exec(line);
      if (said) resolve(Number(said[1]));
    });
  });
}

function describeExit(child: ChildProcess): string {
  return child.signalCode ? `signal ${child.signalCode}` : `exit ${child.exitCode}`;
}
