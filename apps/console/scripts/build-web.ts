import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const WEB = resolve(__dirname, '../web');
const WORKSPACE_ROOT = resolve(__dirname, '../../..');
const STATIC_FILES = ['index.html', 'app.css', 'icon.svg'];

/**
 * Builds the console's front end into `outDir` (default dist/console/web): the Preact app bundled
 * and minified by esbuild into one `app.js`, beside the page and its stylesheet. What the console
 * service serves; `nx build console` and the browser tests run it.
 *
 * @example await buildConsoleWeb()
 */
export async function buildConsoleWeb(outDir = join(WORKSPACE_ROOT, 'dist/console/web')): Promise<{ outDir: string; bytes: number }> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const result = await build({
    entryPoints: [join(WEB, 'src/main.tsx')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(WEB, 'tsconfig.json'),
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  for (const file of STATIC_FILES) copyFileSync(join(WEB, file), join(outDir, file));
  const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  return { outDir, bytes };
}

// `build-web.ts [outDir]`: the image's build stage and `npm start` name where the page goes.
if (require.main === module) {
  const given = process.argv[2];
  buildConsoleWeb(given ? resolve(given) : undefined).then(
    ({ outDir, bytes }) => process.stdout.write(`console web: ${outDir} (app.js ${Math.round(bytes / 1024)} KiB)\n`),
    (error: unknown) => {
      process.stderr.write(`console web build failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
