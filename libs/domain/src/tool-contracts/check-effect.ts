import type { EffectClass } from '@onceport/contracts';
import { draft, type IssueDraft, type PathSegment } from './issue-path';
import type { HttpMethod } from './tool-contract.types';

export interface EffectFacts {
  /** The tool's name, so a refusal names the tool as well as its place in the file. */
  readonly name: string;
  readonly effect: EffectClass;
  readonly channel: 'http' | 'ssh' | 'mcp';
  /** Null for SSH and MCP. */
  readonly method: HttpMethod | null;
  readonly hasProbe: boolean;
  /** HTTP `target.idempotency_header`, MCP `target.idempotency_meta_key`; never on SSH (its marker is its probe). */
  readonly hasIdempotencyKey: boolean;
  readonly hasLedgerRetention: boolean;
}

const PROBE_EXAMPLE: Readonly<Record<EffectFacts['channel'], string>> = {
  http: 'a probe: { method: GET, path, applied: { status: [...] }, not_applied: { status: [...] } }',
  ssh: 'a probe: { kind: marker }',
  mcp: 'a probe: { kind: mcp_task } (the dispatcher asks the upstream for a task, the reconciler polls its tasks/get)',
};

const KEY_FIELD: Readonly<Record<'http' | 'mcp', string>> = {
  http: 'target.idempotency_header',
  mcp: 'target.idempotency_meta_key',
};

const BACKING_EXAMPLE: Readonly<Record<'http' | 'mcp', string>> = {
  http: `target.idempotency_header naming the provider's header that receives the execution id (e.g. Idempotency-Key), or ${PROBE_EXAMPLE.http}`,
  mcp: `target.idempotency_meta_key naming the _meta key the upstream documents as its idempotency key (e.g. com.example/idempotency_key), or ${PROBE_EXAMPLE.mcp}`,
};

/** The rules that make an effect class a promise rather than a label (DESIGN.md §3). */
export function checkEffect(facts: EffectFacts, tool: readonly PathSegment[], issues: IssueDraft[]): void {
  const { effect, channel, method } = facts;
  // MCP, like SSH, has no method (every call is tools/call; upstream hints are never read): none rests on the declaration.
  if (effect === 'none' && method !== null && method !== 'GET' && method !== 'HEAD') {
    issues.push(
      draft(
        'effect_conflict',
        [...tool, 'effect'],
        `effect none with method ${method}`,
        'method GET or HEAD for effect none (read-only is enforced), or the effect this call really has',
      ),
    );
  }
  if (effect === 'remote_command' && channel !== 'ssh') {
    issues.push(
      draft(
        'effect_conflict',
        [...tool, 'effect'],
        `effect remote_command on channel ${channel}`,
        'remote_command only with channel ssh; for HTTP and MCP use idempotent, conditional or irreversible',
      ),
    );
  }
  if (effect === 'conditional' && !facts.hasProbe) {
    // Without a probe the "condition still holds" check after an unknown outcome is impossible.
    issues.push(draft('probe_required', [...tool, 'probe'], 'no probe for effect conditional', PROBE_EXAMPLE[channel]));
  }
  if (effect === 'idempotent' && channel !== 'ssh' && !facts.hasProbe && !facts.hasIdempotencyKey) {
    // After an unknown outcome an idempotent call is sent again: without a key the provider honours
    // or a probe that asks first, that re-send is a guess, not a declaration (issue 16). SSH is
    // checked by checkSshSettlement: there the marker is the probe.
    issues.push(
      draft(
        'blind_idempotency',
        [...tool, 'effect'],
        `effect idempotent for tool "${facts.name}" with neither ${KEY_FIELD[channel]} nor a probe (an unknown outcome would be re-sent blind)`,
        `${BACKING_EXAMPLE[channel]}; or effect: irreversible (an unknown outcome then goes to a human)`,
      ),
    );
  }
  if (effect === 'none' && facts.hasLedgerRetention) {
    issues.push(
      draft(
        'effect_conflict',
        [...tool, 'ledger_retention'],
        'a ledger_retention for effect none',
        'no ledger_retention on read-only tools (a repeated read is a new read), or another effect',
      ),
    );
  }
}
