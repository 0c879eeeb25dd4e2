import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type Options, transformFile } from '@swc/core';

export interface BuildOptions {
  readonly workspaceRoot: string;
  /** `apps/<app>/src/main.ts` is the entry. */
  readonly app: string;
  /** Emptied and filled: `main.js`, `build-info.json` and the compiled tree (`apps/…`, `libs/…`). */
  readonly outDir: string;
}

export interface BuildInfo {
  readonly app: string;
  readonly entry: string;
  /** Workspace-relative sources compiled (only what the entry reaches at run time). */
  readonly sources: readonly string[];
  /** npm packages the compiled code requires; every one is a production dependency. */
  readonly packages: readonly string[];
}

/** A build that must not produce an image: the message says what to fix. */
export class BuildError extends Error {
  override readonly name = 'BuildError';
}

const BUILD_INFO = 'build-info.json';
const REQUIRE = /\brequire\((["'])([^"']+)\1\)/g;
const BUILTINS = new Set(builtinModules);
const TEST_ONLY = /\.spec\.ts$|[/\\]testing(\.ts$|[/\\])/;

/**
 * Compiles one app and the lib sources it reaches into plain CommonJS that `node` runs without a
 * loader: decorator metadata kept for NestJS, `@onceport/*` aliases rewritten to relative paths,
 * and the import graph walked from the compiled output (type-only imports are gone there), so the
 * packages it lists are exactly what production needs.
 *
 * @example await buildApp({ workspaceRoot: process.cwd(), app: 'intake', outDir: 'dist/intake' })
 */
export async function buildApp(options: BuildOptions): Promise<BuildInfo> {
  const root = resolve(options.workspaceRoot);
  const outDir = resolve(options.outDir);
  const entry = join(root, 'apps', options.app, 'src', 'main.ts');
  if (!/^[a-z][a-z0-9-]*$/.test(options.app) || !existsSync(entry)) {
    throw new BuildError(`no app "${options.app}": expected ${relative(root, entry)} (apps: ${listApps(root).join(', ')})`);
  }
  prepareOutDir(outDir);
  const swcOptions = compilerOptions(root);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const production = new Set(Object.keys(manifest.dependencies ?? {}));

  const sources = new Set<string>([entry]);
  const queue = [entry];
  const packages = new Map<string, string>(); // package → first file requiring it
  while (queue.length > 0) {
    const batch = queue.splice(0, queue.length);
    const compiled = await Promise.all(batch.map((file) => compile(file, root, outDir, swcOptions)));
    for (const { file, requires } of compiled) {
      for (const specifier of requires) {
        if (specifier.startsWith('.')) {
          const target = resolveSource(root, file, specifier);
          if (!sources.has(target)) {
            sources.add(target);
            queue.push(target);
          }
        } else if (!isBuiltin(specifier)) {
          const name = packageName(specifier);
          if (!packages.has(name)) packages.set(name, relative(root, file));
        }
      }
    }
  }
  const notProduction = [...packages].filter(([name]) => !production.has(name));
  if (notProduction.length > 0) {
    const list = notProduction.map(([name, file]) => `${name} (required by ${file})`).join(', ');
    throw new BuildError(
      `${options.app} requires packages that are not production dependencies, so the image would not have them: ${list}`,
    );
  }
  const info: BuildInfo = {
    app: options.app,
    entry: 'main.js',
    sources: [...sources].map((file) => relative(root, file).split(sep).join('/')).sort(),
    packages: [...packages.keys()].sort(),
  };
  const main = relative(root, entry).split(sep).join('/').replace(/\.ts$/, '.js');
  writeFileSync(
    join(outDir, 'main.js'),
    `'use strict';\n// Onceport ${options.app}: compiled by tools/build; run with plain node.\nrequire('./${main}');\n`,
  );
  writeFileSync(join(outDir, BUILD_INFO), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}

function compilerOptions(root: string): Options {
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return {
    swcrc: false,
    configFile: false,
    sourceMaps: true,
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      // NestJS resolves constructor parameters from design:paramtypes: without it, injection breaks.
      transform: { legacyDecorator: true, decoratorMetadata: true },
      keepClassNames: true,
      baseUrl: root,
      paths: tsconfig.compilerOptions.paths,
    },
    module: { type: 'commonjs' },
  };
}

async function compile(file: string, root: string, outDir: string, options: Options): Promise<{ file: string; requires: string[] }> {
  const output = await transformFile(file, { ...options, filename: file, sourceFileName: file.slice(file.lastIndexOf(sep) + 1) });
  const target = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
  mkdirSync(dirname(target), { recursive: true });
  const mapName = `${target.slice(target.lastIndexOf(sep) + 1)}.map`;
  writeFileSync(target, `${output.code}\n//# sourceMappingURL=${mapName}\n`);
  if (output.map) writeFileSync(`${target}.map`, output.map);
  return { file, requires: [...output.code.matchAll(REQUIRE)].map((match) => match[2] as string) };
}

function resolveSource(root: string, from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  const candidates = [`${base}.ts`, join(base, 'index.ts')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found)
    throw new BuildError(
      `${relative(root, from)}: cannot resolve "${specifier}" to a TypeScript source (tried ${candidates.map((c) => relative(root, c)).join(', ')})`,
    );
  if (relative(root, found).startsWith('..')) throw new BuildError(`${relative(root, from)}: "${specifier}" leaves the workspace`);
  // Test helpers stay out of images (.dockerignore leaves them out of the build context, too).
  if (TEST_ONLY.test(found))
    throw new BuildError(`${relative(root, from)}: "${specifier}" is test code (${relative(root, found)}), not part of a service`);
  return found;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(specifier.split('/')[0] as string);
}

/** Empties the output directory, refusing to delete anything that is not an earlier build. */
function prepareOutDir(outDir: string): void {
  if (existsSync(outDir)) {
    const entries = readdirSync(outDir);
    if (entries.length > 0 && !entries.includes(BUILD_INFO)) {
      throw new BuildError(`${outDir} is not empty and holds no earlier build (${BUILD_INFO}); refusing to delete it`);
    }
    rmSync(outDir, { recursive: true, force: true });
  }
  mkdirSync(outDir, { recursive: true });
}

function listApps(root: string): string[] {
  const apps = join(root, 'apps');
  return existsSync(apps) ? readdirSync(apps).filter((name) => existsSync(join(apps, name, 'src', 'main.ts'))) : [];
}
