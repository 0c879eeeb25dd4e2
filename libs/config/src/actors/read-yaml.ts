import { LineCounter, isCollection, parseDocument, type Node as YamlNode } from 'yaml';

export type PathSegment = string | number;

export interface YamlText {
  readonly data: unknown;
  readonly syntaxProblems: readonly { readonly line: number; readonly column: number; readonly message: string }[];
  /** The line of the deepest node that exists along `path`, so a missing field points at its parent. */
  lineOf(path: readonly PathSegment[]): number | null;
}

/**
 * YAML 1.2 core schema (`yes`/`no` stay strings), duplicate keys refused, aliases bounded (no
 * "billion laughs"), and node positions kept so every problem names its line.
 */
export function readYaml(text: string): YamlText {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntaxProblems = doc.errors.map((error) => {
    const pos = error.linePos?.[0] ?? lineCounter.linePos(error.pos[0]);
    return { line: pos.line, column: pos.col, message: error.message.split('\n')[0] ?? error.message };
  });
  let data: unknown = null;
  if (syntaxProblems.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      syntaxProblems.push({ line: 1, column: 1, message: error instanceof Error ? error.message : String(error) });
    }
  }
  const lineOf = (path: readonly PathSegment[]): number | null => {
    let node: unknown = doc.contents;
    let offset: number | null = null;
    for (let depth = 0; depth <= path.length; depth++) {
      const range = (node as YamlNode | null)?.range;
      if (range) offset = range[0];
      const segment = path[depth];
      if (segment === undefined || !isCollection(node)) break;
      node = node.get(segment, true);
    }
    return offset === null ? null : lineCounter.linePos(offset).line;
  };
  return { data, syntaxProblems, lineOf };
}

/** `['actors', 0, 'tools']` → `actors[0].tools`. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.reduce<string>((out, segment) => (typeof segment === 'number' ? `${out}[${segment}]` : out === '' ? segment : `${out}.${segment}`), '');
}

export function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}
