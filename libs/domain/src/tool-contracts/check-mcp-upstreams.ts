import { checkHttpUpstream } from './check-http-upstream';
import { checkStdioUpstream } from './check-stdio-upstream';
import { deepFreeze } from './deep-freeze';
import { MCP_DEFAULTS } from './defaults';
import { parseDuration } from './duration';
import { draft, type IssueDraft, type PathSegment } from './issue-path';
import { RawHttpUpstream, RawStdioUpstream, RawUpstreamOfUnknownTransport } from './raw-mcp.schema';
import type { McpUpstream } from './tool-contract.types';
import { parseWithIssues } from './zod-issues';

export interface FileUpstreams {
  /** The valid upstreams of the file by name, each one frozen object shared by every tool that names it. */
  readonly byName: ReadonlyMap<string, McpUpstream>;
  /** Every name the file declares, valid or not: a tool naming a broken upstream needs no second issue. */
  readonly declared: readonly string[];
}

/** The file's `upstreams:` list → upstreams with every default filled, reporting each problem at its entry. */
export function checkMcpUpstreams(rawList: readonly unknown[] | undefined, issues: IssueDraft[]): FileUpstreams {
  const byName = new Map<string, McpUpstream>();
  const firstIndexByName = new Map<string, number>();
  (rawList ?? []).forEach((raw, index) => {
    const at: PathSegment[] = ['upstreams', index];
    const name = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
    const first = typeof name === 'string' ? firstIndexByName.get(name) : undefined;
    if (first !== undefined) {
      issues.push(
        draft(
          'duplicate_upstream',
          [...at, 'name'],
          `"${String(name)}", already declared at upstreams[${first}]`,
          'an upstream name used once in the file',
        ),
      );
    } else if (typeof name === 'string') {
      firstIndexByName.set(name, index);
    }
    const before = issues.length;
    const upstream = checkUpstream(raw, at, issues);
    if (upstream && issues.length === before) byName.set(upstream.name, deepFreeze(upstream));
  });
  return { byName, declared: [...firstIndexByName.keys()] };
}

function checkUpstream(raw: unknown, at: readonly PathSegment[], issues: IssueDraft[]): McpUpstream | null {
  const transport = typeof raw === 'object' && raw !== null ? (raw as { transport?: unknown }).transport : undefined;
  if (transport === 'stdio') {
    const parsed = parseWithIssues(RawStdioUpstream, raw, at);
    if (!parsed.ok) return fail(parsed.issues, issues);
    return { ...common(parsed.value), transport: 'stdio', ...checkStdioUpstream(parsed.value, at, issues) };
  }
  if (transport === 'http') {
    const parsed = parseWithIssues(RawHttpUpstream, raw, at);
    if (!parsed.ok) return fail(parsed.issues, issues);
    return { ...common(parsed.value), transport: 'http', ...checkHttpUpstream(parsed.value, at, issues) };
  }
  const parsed = parseWithIssues(RawUpstreamOfUnknownTransport, raw, at);
  return parsed.ok ? null : fail(parsed.issues, issues);
}

function common(raw: RawStdioUpstream | RawHttpUpstream): Pick<McpUpstream, 'name' | 'protocol' | 'connectTimeoutMs'> {
  return {
    name: raw.name,
    protocol: raw.protocol ?? 'auto',
    connectTimeoutMs: raw.connect_timeout ? (parseDuration(raw.connect_timeout) ?? 0) : MCP_DEFAULTS.connectTimeoutMs,
  };
}

function fail(found: readonly IssueDraft[], issues: IssueDraft[]): null {
  issues.push(...found);
  return null;
}
