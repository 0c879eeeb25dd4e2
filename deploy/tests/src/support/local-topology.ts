import { createServer } from 'node:net';
import { join } from 'node:path';
import { ALL_APPS, type AppName, type RunResult, WORKSPACE_ROOT, run } from './workspace';

const SCRIPT = join(WORKSPACE_ROOT, 'deploy/local/onceport-local.sh');

/** Drives deploy/local/onceport-local.sh: the same port scheme, the same commands an operator types. */
export class LocalTopology {
  constructor(
    readonly apps: readonly AppName[],
    readonly replicas: number,
    readonly basePort: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** replica r of app i listens on BASE + i + 100*r (deploy/local/onceport-local.sh). */
  port(app: AppName, replica: number): number {
    return this.basePort + ALL_APPS.indexOf(app) + 1 + 100 * replica;
  }

  url(app: AppName, replica: number): string {
    return `http://127.0.0.1:${this.port(app, replica)}`;
  }

  async run(...args: string[]): Promise<RunResult> {
    return run('bash', [SCRIPT, ...args], { env: this.env, timeoutMs: 180_000 });
  }

  /** Runs a command that must succeed; its output is in the error otherwise. */
  async must(...args: string[]): Promise<string> {
    const result = await this.run(...args);
    if (result.code !== 0) throw new Error(`onceport-local.sh ${args.join(' ')} exited ${result.code}:\n${result.stdout}${result.stderr}`);
    return result.stdout;
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port whose whole scheme (every app, every replica) is free right now. */
export async function freeBasePort(replicas: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 20_000 + 200 * Math.floor(Math.random() * 200);
    const ports = ALL_APPS.flatMap((_, i) => Array.from({ length: replicas }, (__, r) => base + i + 1 + 100 * r));
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base;
  }
  throw new Error('no free port range for the local topology');
}
