import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { K8sObject } from './k8s-object';

function findKubectl(): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter).concat('/usr/bin', '/usr/local/bin')) {
    const candidate = join(dir, 'kubectl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/**
 * kubectl, installed from Debian's `kubectl` package when it is missing. If it cannot be had, this
 * throws: the manifests would otherwise go unchecked, and a skipped check must not look like a pass.
 */
export function ensureKubectl(): string {
  const found = findKubectl();
  if (found) return found;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = (...args: string[]): void => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    execFileSync(command as string, rest, { stdio: 'pipe', timeout: 300_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  const problems: string[] = [];
  for (const attempt of [() => apt('install', '-y', '--no-install-recommends', 'kubectl'), () => (apt('update'), apt('install', '-y', '--no-install-recommends', 'kubectl'))]) {
    try {
      attempt();
      const installed = findKubectl();
      if (installed) return installed;
    } catch (error) {
      problems.push(error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error));
    }
  }
  throw new Error(
    `kubectl is missing and "apt-get install kubectl" did not provide it (${problems.join('; ')}): the Kubernetes manifests are NOT checked. Install Debian's kubectl package and run again.`,
  );
}

/** `kubectl kustomize <dir>`, parsed: every object of the overlay, in order. */
export function renderKustomization(kubectl: string, dir: string): K8sObject[] {
  const output = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  return parseAllDocuments(output)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${dir}: ${document.errors.map((e) => e.message).join('; ')}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}
