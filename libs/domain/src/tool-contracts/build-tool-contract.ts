import { UNDECLARED_EFFECT_CLASS } from '@onceport/contracts';
import type { ArgumentsAjv } from './arguments-ajv';
import { checkArgumentRoles } from './check-argument-roles';
import { checkArgumentsSchema } from './check-arguments-schema';
import { checkCredentialRef } from './check-credential-ref';
import { checkEffect } from './check-effect';
import { checkHttpTarget } from './check-http-target';
import { checkHttpProbe } from './check-probe';
import { checkSshSettlement } from './check-ssh-settlement';
import { checkSshTarget } from './check-ssh-target';
import { DEFAULT_CORRELATION_WINDOW_MS } from './defaults';
import { parseDuration } from './duration';
import type { IssueDraft, PathSegment } from './issue-path';
import { RawHttpTool, RawSshTool, RawToolOfUnknownChannel, type RawTool } from './raw-tool-contract.schema';
import type { ToolContract } from './tool-contract.types';
import { parseWithIssues } from './zod-issues';

export interface ToolLocation {
  readonly file: string;
  readonly index: number;
  readonly line: number | null;
}

/** One YAML tool entry → a contract with every default filled, or the list of what is wrong. */
export function buildToolContract(
  rawTool: unknown,
  where: ToolLocation,
  ajv: ArgumentsAjv,
): { contract: ToolContract | null; issues: IssueDraft[] } {
  const at: PathSegment[] = ['tools', where.index];
  const channel = typeof rawTool === 'object' && rawTool !== null ? (rawTool as { channel?: unknown }).channel : undefined;
  const schema = channel === 'http' ? RawHttpTool : channel === 'ssh' ? RawSshTool : RawToolOfUnknownChannel;
  const parsed = parseWithIssues(schema, rawTool, at);
  if (!parsed.ok) return { contract: null, issues: parsed.issues };
  if (parsed.value.channel !== 'http' && parsed.value.channel !== 'ssh') return { contract: null, issues: [] };

  const raw = parsed.value as RawTool;
  const issues: IssueDraft[] = [];
  const argumentsSchema = checkArgumentsSchema(raw.arguments, [...at, 'arguments'], ajv, issues);
  const argumentSpecs = checkArgumentRoles(raw.roles, argumentsSchema, at, issues);
  const rules = { schema: argumentsSchema, specs: argumentSpecs };
  const effect = raw.effect ?? UNDECLARED_EFFECT_CLASS;
  const common = {
    name: raw.name,
    title: raw.title ?? raw.name,
    description: raw.description,
    credentialRef: checkCredentialRef(raw.credential_ref, [...at, 'credential_ref'], issues),
    argumentsSchema,
    argumentSpecs,
    effect,
    effectDeclared: raw.effect !== undefined,
    correlationWindowMs: raw.correlation_window ? (parseDuration(raw.correlation_window) ?? 0) : DEFAULT_CORRELATION_WINDOW_MS[effect],
    ledgerRetentionMs: raw.ledger_retention ? parseDuration(raw.ledger_retention) : null,
    approval: raw.approval ?? 'none',
    source: { file: where.file, index: where.index, line: where.line },
  };

  let contract: ToolContract;
  if (raw.channel === 'http') {
    const target = checkHttpTarget(raw.target, [...at, 'target'], rules, issues);
    const probe = raw.probe ? checkHttpProbe(raw.probe, [...at, 'probe'], rules, issues) : null;
    contract = { ...common, channel: 'http', target, probe };
  } else {
    const target = checkSshTarget(raw.target, [...at, 'target'], rules, issues);
    checkSshSettlement(
      { markers: target.markers, probeDeclared: raw.probe !== undefined, effect, credentialRef: raw.credential_ref },
      at,
      issues,
    );
    // Every SSH command, whatever its effect class, settles through the durable marker (DESIGN.md
    // §9): a bare re-send could run it twice. Without markers there is nothing to read, so an
    // unknown outcome goes to a human.
    const probe = target.markers ? { kind: 'marker' as const } : null;
    contract = { ...common, channel: 'ssh', target, probe };
  }
  checkEffect(
    {
      effect,
      channel: raw.channel,
      method: contract.channel === 'http' ? contract.target.method : null,
      hasProbe: contract.probe !== null,
      hasLedgerRetention: raw.ledger_retention !== undefined,
    },
    at,
    issues,
  );
  return issues.length > 0 ? { contract: null, issues } : { contract: deepFreeze(contract), issues };
}

/** Contracts are shared by every request; freezing turns an accidental mutation into an error. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
