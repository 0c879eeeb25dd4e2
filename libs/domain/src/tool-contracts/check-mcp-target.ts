import type { FileUpstreams } from './check-mcp-upstreams';
import { MCP_DEFAULTS } from './defaults';
import { parseDuration } from './duration';
import { describeValue, draft, type IssueDraft, type PathSegment } from './issue-path';
import type { RawMcpTarget } from './raw-mcp.schema';
import { closestName } from './suggest';
import type { McpTarget, McpUpstream } from './tool-contract.types';

/** MCP `_meta` key names: an optional prefix of dot-separated labels ending in `/`, then a name. */
const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const META_KEY = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*/)?[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`);
/** Reserved by MCP (its second label, or since 2025-06-18 any label but the last) and by Onceport for the execution id. */
const RESERVED_LABELS = new Set(['modelcontextprotocol', 'mcp']);
const ONCEPORT_PREFIX = 'onceport/';

/** A tool of an MCP upstream: which upstream of this file, which of its tools, and the call's bounds. */
export function checkMcpTarget(
  raw: RawMcpTarget,
  contractName: string,
  at: readonly PathSegment[],
  upstreams: FileUpstreams,
  issues: IssueDraft[],
): McpTarget | null {
  const upstream = resolveUpstream(raw.upstream, [...at, 'upstream'], upstreams, issues);
  if (raw.idempotency_meta_key !== undefined) checkMetaKey(raw.idempotency_meta_key, [...at, 'idempotency_meta_key'], issues);
  if (!upstream) return null;
  return {
    upstream,
    tool: raw.tool ?? contractName,
    timeoutMs: raw.timeout ? (parseDuration(raw.timeout) ?? 0) : MCP_DEFAULTS.timeoutMs,
    maxResultBytes: raw.max_result_bytes ?? MCP_DEFAULTS.maxResultBytes,
    idempotencyMetaKey: raw.idempotency_meta_key ?? null,
  };
}

function resolveUpstream(name: string, at: readonly PathSegment[], upstreams: FileUpstreams, issues: IssueDraft[]): McpUpstream | null {
  const found = upstreams.byName.get(name);
  if (found) return found;
  // Declared but broken: its own issues say what to fix.
  if (upstreams.declared.includes(name)) return null;
  const known = upstreams.declared;
  const hint = closestName(name, known);
  const expected =
    known.length === 0
      ? 'the name of an upstream declared under upstreams: in this file (it declares none: add an upstreams: list)'
      : `the name of an upstream declared under upstreams: in this file (${known.join(' | ')})${hint ? ` — did you mean "${hint}"?` : ''}`;
  issues.push(draft('unknown_upstream', at, describeValue(name), expected));
  return null;
}

function checkMetaKey(key: string, at: readonly PathSegment[], issues: IssueDraft[]): void {
  const expected = 'a _meta key the upstream documents as its idempotency key, e.g. com.example/idempotency_key (MCP _meta key rules)';
  if (!META_KEY.test(key)) {
    issues.push(draft('invalid_field', at, describeValue(key), expected));
    return;
  }
  const slash = key.indexOf('/');
  const labels = slash < 0 ? [] : key.slice(0, slash).split('.');
  const reserved = labels.some((label, i) => RESERVED_LABELS.has(label.toLowerCase()) && (i === 1 || i < labels.length - 1));
  if (reserved || key.startsWith(ONCEPORT_PREFIX)) {
    issues.push(
      draft(
        'invalid_field',
        at,
        describeValue(key),
        `${expected}; not under a prefix reserved by MCP, nor under onceport/ (the execution id always travels as onceport/execution_id)`,
      ),
    );
  }
}
