import type { ExistingContract } from './existing-contract';
import type { ImportedTool } from './imported-contract';
import { sameJson, schemaDiff } from './schema-diff';

/** What changed upstream since the operator's file was written. */
export interface UpstreamChanges {
  readonly added: readonly ImportedTool[];
  readonly removed: readonly { readonly name: string; readonly upstreamTool: string }[];
  readonly changed: readonly { readonly name: string; readonly upstreamTool: string; readonly diff: readonly string[] }[];
}

export function upstreamChanges(existing: ExistingContract, imported: readonly ImportedTool[]): UpstreamChanges {
  const listed = new Map(imported.map((tool) => [tool.upstreamTool, tool]));
  const added = imported.filter((tool) => !existing.tools.has(tool.upstreamTool));
  const removed = [...existing.tools.values()].filter((tool) => !listed.has(tool.upstreamTool));
  const changed = [...existing.tools.values()].flatMap((tool) => {
    const now = listed.get(tool.upstreamTool);
    if (!now || sameJson(tool.arguments, now.arguments)) return [];
    return [{ name: tool.name, upstreamTool: tool.upstreamTool, diff: schemaDiff(tool.arguments, now.arguments) }];
  });
  return { added, removed, changed };
}

export function hasChanges(changes: UpstreamChanges): boolean {
  return changes.added.length + changes.removed.length + changes.changed.length > 0;
}

/** The report a re-run prints: each change, and what the operator does about it. */
export function renderChanges(changes: UpstreamChanges, file: string, upstream: string, appended: boolean): string {
  if (!hasChanges(changes)) return `${file}: upstream ${upstream} is unchanged (every tool present, every input schema the same)`;
  const lines = [`${file}: upstream ${upstream} changed`];
  for (const tool of changes.added) {
    lines.push(
      `  added:   ${tool.upstreamTool}${appended ? ` (appended as ${tool.name}: choose its roles and effect)` : ' (--write-new appends it)'}`,
    );
  }
  for (const tool of changes.removed)
    lines.push(`  removed: ${tool.upstreamTool} (still in the file as ${tool.name}: calls to it will fail upstream)`);
  for (const tool of changes.changed) {
    lines.push(`  changed: ${tool.upstreamTool} (its input schema; the file's arguments and roles of ${tool.name} are yours to update)`);
    lines.push(...tool.diff.map((line) => `      ${line}`));
  }
  return lines.join('\n');
}
