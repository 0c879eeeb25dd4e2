import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly hitCount?: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

export interface ProfileEntry {
  readonly fn: string;
  readonly where: string;
  readonly selfPercent: number;
}

/** The `.cpuprofile` a process wrote with `--cpu-prof` into `dir` (the newest, if several). */
export function findProfile(dir: string): string | null {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort();
  const newest = files[files.length - 1];
  return newest ? join(dir, newest) : null;
}

/**
 * Self time by function (summed over every place it was sampled), busiest first; idle time is left
 * out, so the percentages are of the time the process was working.
 */
export function topSelfTime(profilePath: string, workspaceRoot: string, limit = 12): ProfileEntry[] {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as { nodes: ProfileNode[] };
  const bySite = new Map<string, { fn: string; where: string; hits: number }>();
  let working = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || hits === 0) continue;
    working += hits;
    const where = url ? `${shortUrl(url, workspaceRoot)}:${lineNumber + 1}` : '';
    const key = `${functionName}@${where}`;
    const site = bySite.get(key) ?? { fn: functionName || '(anonymous)', where, hits: 0 };
    site.hits += hits;
    bySite.set(key, site);
  }
  return [...bySite.values()]
    .sort((a, b) => b.hits - a.hits)
    .slice(0, limit)
    .map((site) => ({ fn: site.fn, where: site.where, selfPercent: working === 0 ? 0 : (site.hits / working) * 100 }));
}

function shortUrl(url: string, workspaceRoot: string): string {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith(workspaceRoot) ? relative(workspaceRoot, path) : path.replace(/^.*node_modules\//, '');
}
