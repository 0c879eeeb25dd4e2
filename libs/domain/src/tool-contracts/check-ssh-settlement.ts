import type { EffectClass } from '@onceport/contracts';
import { draft, type IssueDraft, type PathSegment } from './issue-path';

export interface SshSettlementFacts {
  readonly markers: boolean;
  readonly probeDeclared: boolean;
  readonly effect: EffectClass;
  readonly credentialRef: string | undefined;
}

/** Effect classes whose unknown outcome goes to a human anyway: the only honest ones without a marker. */
const SETTLED_BY_A_HUMAN: readonly EffectClass[] = ['irreversible', 'remote_command'];

/**
 * What an SSH tool needs so that an unknown outcome can be settled without running the command
 * twice (DESIGN.md §9). Refused at load, not at the first dispatch: a contract that cannot be
 * settled safely should never accept a call.
 */
export function checkSshSettlement(facts: SshSettlementFacts, tool: readonly PathSegment[], issues: IssueDraft[]): void {
  if (facts.credentialRef === undefined) {
    // Without it the dispatcher refuses every call and the reconciler cannot read a marker.
    issues.push(
      draft(
        'invalid_field',
        [...tool, 'credential_ref'],
        'nothing (the field is missing)',
        'credential_ref naming the private key for this host, e.g. credential_ref: ssh-deploy (the dispatcher and the reconciler read it from ONCEPORT_CREDENTIAL_SSH_DEPLOY)',
      ),
    );
  }
  if (facts.markers) return;
  if (facts.probeDeclared) {
    issues.push(
      draft(
        'effect_conflict',
        [...tool, 'probe'],
        'a marker probe with target.markers: false',
        'no probe when the host runs no marker wrapper, or markers: true',
      ),
    );
  }
  if (!SETTLED_BY_A_HUMAN.includes(facts.effect)) {
    // A bare command whose session dropped may have run: re-sending it because the contract calls
    // it none or idempotent would be a guess about a program the gateway cannot see.
    issues.push(
      draft(
        'effect_conflict',
        [...tool, 'effect'],
        `effect ${facts.effect} with target.markers: false`,
        'effect remote_command (or irreversible): without markers an unknown outcome can only go to a human; or drop markers: false so the marker settles it',
      ),
    );
  }
}
