import { isCollection, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import type { PathSegment } from './issue-path';

export interface YamlSyntaxProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export interface YamlSource {
  /** Plain JS data; meaningless when `syntaxProblems` is non-empty. */
  readonly data: unknown;
  readonly syntaxProblems: readonly YamlSyntaxProblem[];
  /** The line of the deepest node that exists along `path`, so even a missing field points near its parent. */
  lineOf(path: readonly PathSegment[]): number | null;
}

/**
 * Parses YAML 1.2 (core schema: `yes`/`no` stay strings, no implicit dates), keeping node positions
 * so every issue can name its line. Duplicate keys are syntax errors, not "last one wins".
 */
export function readYaml(text: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntaxProblems = doc.errors.map((error) => {
    const pos = error.linePos?.[0] ?? lineCounter.linePos(error.pos[0]);
    return { line: pos.line, column: pos.col, message: error.message.split('\n')[0] ?? error.message };
  });
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
  let data: unknown = null;
  if (syntaxProblems.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      // An alias that expands too far ("billion laughs") is refused like a syntax error.
      syntaxProblems.push({ line: 1, column: 1, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { data, syntaxProblems, lineOf };
}
