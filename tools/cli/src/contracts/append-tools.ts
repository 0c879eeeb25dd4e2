import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { CliError, EXIT } from '../cli/exit-codes';
import type { ExistingContract } from './existing-contract';
import type { ImportedTool } from './imported-contract';
import { sameJson } from './schema-diff';
import { renderToolItems } from './render-contract';

/** Where `renderToolItems` puts an item's dash. */
const RENDERED_DASH_COLUMN = 2;

/**
 * The file's text with the new tools added at the end of its `tools:` list. The operator's text is
 * kept byte for byte (their comments, order, quoting): the items are appended as text, at the list's
 * own indentation, and the result is parsed back to prove every earlier entry is unchanged.
 */
export function appendTools(existing: ExistingContract, tools: readonly ImportedTool[]): string {
  const root = existing.doc.contents;
  const last = isMap(root) ? root.items[root.items.length - 1] : undefined;
  const list = last && isScalar(last.key) && last.key.value === 'tools' ? last.value : undefined;
  if (!isSeq(list) || list.flow || list.items.length === 0)
    throw new CliError(
      EXIT.failed,
      `contracts import: --write-new appends to a tools: list that is the last section of ${existing.path}, in block style; ` +
        'move tools: last, or run without --out and copy the new entries',
    );
  const dashColumn = columnOfDash(existing.text, (list.items[0] as { range?: [number, number, number] }).range?.[0] ?? 0);
  const items = shift(renderToolItems(existing.upstream, tools), dashColumn - RENDERED_DASH_COLUMN);
  const text = `${existing.text.trimEnd()}\n${items.trimEnd()}\n`;
  prove(existing, text, tools.length);
  return text;
}

function columnOfDash(text: string, itemOffset: number): number {
  const lineStart = text.lastIndexOf('\n', itemOffset - 1) + 1;
  const dash = text.slice(lineStart, itemOffset).lastIndexOf('-');
  return dash < 0 ? RENDERED_DASH_COLUMN : dash;
}

function shift(text: string, by: number): string {
  if (by === 0) return text;
  return text
    .split('\n')
    .map((line) => (line === '' ? line : by > 0 ? `${' '.repeat(by)}${line}` : line.slice(-by)))
    .join('\n');
}

function prove(existing: ExistingContract, text: string, added: number): void {
  const before = existing.doc.toJS() as { tools: unknown[] };
  const after = parseDocument(text);
  const tools = (after.toJS() as { tools?: unknown[] } | null)?.tools;
  const kept = after.errors.length === 0 && Array.isArray(tools) && tools.length === before.tools.length + added;
  if (!kept || !sameJson(tools.slice(0, before.tools.length), before.tools) || !sameJson(omitTools(after.toJS()), omitTools(before)))
    throw new CliError(EXIT.failed, `contracts import: appending to ${existing.path} would change what is already there; nothing written`);
}

function omitTools(data: unknown): unknown {
  const { tools: _tools, ...rest } = data as Record<string, unknown>;
  return rest;
}
