import { UNDECLARED_EFFECT_CLASS } from '@onceport/contracts';
import type { ArgumentsAjv } from './arguments-ajv';
import { checkArgumentRoles } from './check-argument-roles';
import { checkArgumentsSchema } from './check-arguments-schema';
import { checkCredentialRef } from './check-credential-ref';
import { checkEffect } from './check-effect';
import { checkHttpTarget } from './check-http-target';
import { checkMcpTarget } from './check-mcp-target';
import type { FileUpstreams } from './check-mcp-upstreams';
import { checkHttpProbe } from './check-probe';
import { checkSshSettlement } from './check-ssh-settlement';
import { checkSshTarget } from './check-ssh-target';
import type { TemplateRules } from './check-template';
import { deepFreeze } from './deep-freeze';
import { DEFAULT_CORRELATION_WINDOW_MS } from './defaults';
import { parseDuration } from './duration';
import { draft, type IssueDraft, type PathSegment } from './issue-path';
import { RawHttpTool, RawMcpTool, RawSshTool, RawToolOfUnknownChannel, type RawTool } from './raw-tool-contract.schema';
import type { McpToolContract, ToolContract } from './tool-contract.types';
import { parseWithIssues } from './zod-issues';

export interface ToolLocation {
  readonly file: string;
  readonly index: number;
  readonly line: number | null;
}

type Common = Omit<ToolContract, 'channel' | 'target' | 'probe'>;

/** One YAML tool entry → a contract with every default filled, or the list of what is wrong. */
export function buildToolContract(
  rawTool: unknown,
  where: ToolLocation,
  ajv: ArgumentsAjv,
  upstreams: FileUpstreams,
): { contract: ToolContract | null; issues: IssueDraft[] } {
  const at: PathSegment[] = ['tools', where.index];
  const channel = typeof rawTool === 'object' && rawTool !== null ? (rawTool as { channel?: unknown }).channel : undefined;
  const schema =
    channel === 'http' ? RawHttpTool : channel === 'ssh' ? RawSshTool : channel === 'mcp' ? RawMcpTool : RawToolOfUnknownChannel;
  const parsed = parseWithIssues(schema, rawTool, at);
  if (!parsed.ok) return { contract: null, issues: parsed.issues };
  if (parsed.value.channel !== 'http' && parsed.value.channel !== 'ssh' && parsed.value.channel !== 'mcp') {
    return { contract: null, issues: [] };
  }

  const raw = parsed.value as RawTool;
  const issues: IssueDraft[] = [];
  const argumentsSchema = checkArgumentsSchema(raw.arguments, [...at, 'arguments'], ajv, issues);
  const argumentSpecs = checkArgumentRoles(raw.roles, argumentsSchema, at, issues);
  const rules = { schema: argumentsSchema, specs: argumentSpecs };
  const effect = raw.effect ?? UNDECLARED_EFFECT_CLASS;
  const common: Common = {
    name: raw.name,
    title: raw.title ?? raw.name,
    description: raw.description,
    // An MCP tool's is its upstream's, set below.
    credentialRef: raw.channel === 'mcp' ? null : checkCredentialRef(raw.credential_ref, [...at, 'credential_ref'], issues),
    argumentsSchema,
    argumentSpecs,
    effect,
    effectDeclared: raw.effect !== undefined,
    correlationWindowMs: raw.correlation_window ? (parseDuration(raw.correlation_window) ?? 0) : DEFAULT_CORRELATION_WINDOW_MS[effect],
    ledgerRetentionMs: raw.ledger_retention ? parseDuration(raw.ledger_retention) : null,
    approval: raw.approval ?? 'none',
    deliberateRepeats: raw.deliberate_repeats ?? 'allowed',
    source: { file: where.file, index: where.index, line: where.line },
  };

  const contract = withTarget(raw, common, { at, rules, upstreams }, issues);
  checkEffect(
    {
      name: raw.name,
      effect,
      channel: raw.channel,
      method: raw.channel === 'http' ? raw.target.method : null,
      hasProbe: contract ? contract.probe !== null : raw.probe !== undefined,
      hasIdempotencyKey: hasIdempotencyKey(raw),
      hasLedgerRetention: raw.ledger_retention !== undefined,
    },
    at,
    issues,
  );
  return issues.length > 0 || !contract ? { contract: null, issues } : { contract: deepFreeze(contract), issues };
}

/** Whether the target itself receives the execution id as a key it deduplicates on. */
function hasIdempotencyKey(raw: RawTool): boolean {
  if (raw.channel === 'http') return raw.target.idempotency_header !== undefined;
  if (raw.channel === 'mcp') return raw.target.idempotency_meta_key !== undefined;
  return false;
}

interface TargetContext {
  readonly at: readonly PathSegment[];
  readonly rules: TemplateRules;
  readonly upstreams: FileUpstreams;
}

function withTarget(raw: RawTool, common: Common, { at, rules, upstreams }: TargetContext, issues: IssueDraft[]): ToolContract | null {
  switch (raw.channel) {
    case 'http': {
      const target = checkHttpTarget(raw.target, [...at, 'target'], rules, issues);
      const probe = raw.probe ? checkHttpProbe(raw.probe, [...at, 'probe'], rules, issues) : null;
      return { ...common, channel: 'http', target, probe };
    }
    case 'ssh': {
      const target = checkSshTarget(raw.target, [...at, 'target'], rules, issues);
      checkSshSettlement(
        { markers: target.markers, probeDeclared: raw.probe !== undefined, effect: common.effect, credentialRef: raw.credential_ref },
        at,
        issues,
      );
      // Every SSH command, whatever its effect class, settles through the durable marker (DESIGN.md
      // §9): a bare re-send could run it twice. Without markers there is nothing to read, so an
      // unknown outcome goes to a human.
      const probe = target.markers ? { kind: 'marker' as const } : null;
      return { ...common, channel: 'ssh', target, probe };
    }
    case 'mcp':
      return mcpContract(raw, common, at, upstreams, issues);
    default: {
      const _exhaustive: never = raw;
      return _exhaustive;
    }
  }
}

function mcpContract(
  raw: Extract<RawTool, { channel: 'mcp' }>,
  common: Common,
  at: readonly PathSegment[],
  upstreams: FileUpstreams,
  issues: IssueDraft[],
): McpToolContract | null {
  const target = checkMcpTarget(raw.target, raw.name, [...at, 'target'], upstreams, issues);
  if (raw.credential_ref !== undefined) {
    // The record and the dispatcher read the upstream's credential; a second one here could only disagree.
    const secret: IssueDraft[] = [];
    checkCredentialRef(raw.credential_ref, [...at, 'credential_ref'], secret);
    issues.push(...secret.filter((issue) => issue.code === 'secret_in_contract'));
    const upstream = `the upstream "${raw.target.upstream}"`;
    issues.push(
      draft(
        'invalid_field',
        [...at, 'credential_ref'],
        'a credential_ref on a channel: mcp tool (value not shown)',
        `no credential_ref on an MCP tool: put credential_ref on ${upstream} under upstreams: (the upstream's credential serves all its tools)`,
      ),
    );
  }
  if (!target) return null;
  // `mcp_task`: the dispatcher asks the upstream for a task, and an unfinished one is polled by the
  // reconciler (tasks/get). A call the upstream answered without a task settles by the effect class.
  const probe = raw.probe ? { kind: raw.probe.kind } : null;
  return { ...common, credentialRef: target.upstream.credentialRef, channel: 'mcp', target, probe };
}
