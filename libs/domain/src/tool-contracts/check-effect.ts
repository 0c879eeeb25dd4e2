import type { EffectClass } from '@onceport/contracts';
import { draft, type IssueDraft, type PathSegment } from './issue-path';
import type { HttpMethod } from './tool-contract.types';

export interface EffectFacts {
  readonly effect: EffectClass;
  readonly channel: 'http' | 'ssh' | 'mcp';
  /** Null for SSH and MCP. */
  readonly method: HttpMethod | null;
  readonly hasProbe: boolean;
  readonly hasLedgerRetention: boolean;
}

const PROBE_EXAMPLE: Readonly<Record<EffectFacts['channel'], string>> = {
  http: 'a probe: { method: GET, path, applied: { status: [...] }, not_applied: { status: [...] } }',
  ssh: 'a probe: { kind: marker }',
  mcp: 'a probe, and MCP tools have none yet (upstream tasks are not supported): declare idempotent or irreversible',
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
