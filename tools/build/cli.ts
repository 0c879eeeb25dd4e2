import { join, resolve } from 'node:path';
import { BuildError, buildApp } from './build-app';

const USAGE =
  'usage: node -r @swc-node/register tools/build/cli.ts <app>... [--out-root <dir>]  (default out-root: dist; each app lands in <out-root>/<app>)';

/** `build <app>…`: compiles each app into `<out-root>/<app>` (what the Dockerfile's build stage runs). */
async function main(argv: readonly string[]): Promise<number> {
  const apps: string[] = [];
  let outRoot = 'dist';
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--out-root' && argv[i + 1]) outRoot = argv[++i] as string;
    else if (arg.startsWith('-')) return usage(`unknown option ${arg}`);
    else apps.push(arg);
  }
  if (apps.length === 0) return usage('no app named');
  const workspaceRoot = resolve(__dirname, '../..');
  for (const app of apps) {
    const started = Date.now();
    try {
      const info = await buildApp({ workspaceRoot, app, outDir: join(resolve(outRoot), app) });
      process.stdout.write(
        `${app}: ${info.sources.length} sources → ${join(outRoot, app, info.entry)} (${info.packages.length} packages) in ${Date.now() - started} ms\n`,
      );
    } catch (error) {
      if (!(error instanceof BuildError)) throw error;
      process.stderr.write(`build ${app}: ${error.message}\n`);
      return 1;
    }
  }
  return 0;
}

function usage(problem: string): number {
  process.stderr.write(`build: ${problem}\n${USAGE}\n`);
  return 64; // EX_USAGE
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`build: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
