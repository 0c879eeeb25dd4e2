import { z } from 'zod';
import { STATE_FILES, readJsonFile, statePath, writeJsonAtomic } from './files';

/**
 * What `tools/list` shows, changed at run time (an upstream that changed under a contract): tools
 * hidden, arguments added to a tool's input schema, and how many tools per page.
 *
 * @example setCatalog(stateDir, { hiddenTools: ['slow_effect'], extraArguments: { record_effect: { priority: { type: 'integer' } } } })
 */
export const UpstreamCatalog = z.strictObject({
  hiddenTools: z.array(z.string()).optional(),
  extraArguments: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))).optional(),
  /** Tools per `tools/list` page (default: all in one page). */
  pageSize: z.int().min(1).max(1000).optional(),
});
export type UpstreamCatalog = z.input<typeof UpstreamCatalog>;

export function setCatalog(stateDir: string, catalog: UpstreamCatalog): void {
  writeJsonAtomic(statePath(stateDir, STATE_FILES.catalog), UpstreamCatalog.parse(catalog));
}

export function readCatalog(stateDir: string): UpstreamCatalog {
  return UpstreamCatalog.parse(readJsonFile(statePath(stateDir, STATE_FILES.catalog)) ?? {});
}
