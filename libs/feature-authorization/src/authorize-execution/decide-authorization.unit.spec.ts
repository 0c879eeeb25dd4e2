import { type Actor } from '@onceport/config';
import { type ApprovalMode } from '@onceport/contracts';
import { NEVER_LOCKED, type SessionGrant, vaultState } from '@onceport/domain';
import { EXECUTION_ID, FINGERPRINT, T0, events, given } from '@onceport/domain/testing';
import {
  type AuthorizationInput,
  approvalIdFor,
  decideAuthorization,
  effectiveApproval,
  executionIdOfApproval,
} from './decide-authorization';

const NOW = new Date(T0 + 1_000);
const POLICY = '3f9a1c0b7d2e';
const TTL = 15 * 60_000;

const automatic: Actor = { id: 'agent:billing-bot', apiKeysSha256: [], tools: ['create_invoice'], sessionGrant: 'automatic' };
const existingGrant: SessionGrant = {
  actor: automatic.id,
  agentProcess: 'mcp-sess-a1',
  basis: 'automatic',
  grantedBy: 'svc:authorization',
  policyVersion: 'older',
  grantedAt: new Date(T0 - 60_000).toISOString(),
};

function input(
  overrides: Partial<AuthorizationInput> = {},
  approval: ApprovalMode = 'none',
  agentProcess: string | null = 'mcp-sess-a1',
): AuthorizationInput {
  return {
    execution: { executionId: EXECUTION_ID, tool: 'create_invoice', actor: automatic.id, agentProcess, approval },
    contractApproval: approval,
    vault: NEVER_LOCKED,
    actor: automatic,
    sessionGrant: existingGrant,
    policyVersion: POLICY,
    approvalTtlMs: TTL,
    now: NOW,
    ...overrides,
  };
}

const accepted = (approval: ApprovalMode = 'none', agentProcess: string | null = 'mcp-sess-a1') => [
  events.accepted({ approval, agentProcess }),
];

describe('decideAuthorization — the ladder, rung by rung', () => {
  it("rung 1: given a locked vault, everything is denied with the operator's lock reason, even an actor with a grant and a harmless tool", () => {
    const vault = vaultState([{ type: 'VaultLocked', data: { by: 'ops:alice', reason: 'leak', lockedAt: new Date(T0).toISOString() } }]);
    const decision = decideAuthorization(input({ vault }));
    expect(decision).toMatchObject({ rung: 'vault_locked', grant: null });
    given(accepted())
      .when(decision.command)
      .then([
        {
          type: 'ExecutionDenied',
          data: {
            executionId: EXECUTION_ID,
            code: 'vault_locked',
            reason: 'The vault is locked: leak (by ops:alice). Every call is denied until an operator unlocks it.',
            deniedAt: NOW.toISOString(),
          },
        },
      ]);
  });

  it('rung 1 comes first: a locked vault denies an unknown actor as vault_locked, not actor_not_allowed', () => {
    const vault = vaultState([{ type: 'VaultLocked', data: { by: 'ops:alice', reason: 'leak', lockedAt: new Date(T0).toISOString() } }]);
    expect(decideAuthorization(input({ vault, actor: null })).rung).toBe('vault_locked');
  });

  it('rung 2: given an actor missing from the actors file, it is not allowed anything', () => {
    const decision = decideAuthorization(input({ actor: null }));
    expect(decision).toMatchObject({ rung: 'actor_not_allowed', grant: null });
    given(accepted())
      .when(decision.command)
      .then([
        {
          type: 'ExecutionDenied',
          data: {
            executionId: EXECUTION_ID,
            code: 'actor_not_allowed',
            reason: `agent:billing-bot is not in the actors file (policy ${POLICY}): it may call no tool.`,
            deniedAt: NOW.toISOString(),
          },
        },
      ]);
  });

  it('rung 2: given an actor whose tools do not list this one, it is denied; "*" allows every tool', () => {
    const decision = decideAuthorization(input({ actor: { ...automatic, tools: ['get_build_status'] } }));
    expect(decision.command).toMatchObject({
      type: 'DenyExecution',
      data: {
        code: 'actor_not_allowed',
        reason: `agent:billing-bot may not call create_invoice: the actors file (policy ${POLICY}) does not list it for this actor.`,
      },
    });
    expect(decideAuthorization(input({ actor: { ...automatic, tools: '*' } })).rung).toBe('authorized');
  });

  it('rung 2 before rung 3: a forbidden tool never earns the process a session grant', () => {
    expect(decideAuthorization(input({ actor: { ...automatic, tools: [] }, sessionGrant: null })).grant).toBeNull();
  });

  it('rung 3, automatic: given a new agent process, a grant is recorded and the call is authorized on it', () => {
    const decision = decideAuthorization(input({ sessionGrant: null }));
    expect(decision.grant).toEqual({
      actor: automatic.id,
      agentProcess: 'mcp-sess-a1',
      basis: 'automatic',
      grantedBy: 'svc:authorization',
      policyVersion: POLICY,
      grantedAt: NOW.toISOString(),
    });
    given(accepted())
      .when(decision.command)
      .then([
        {
          type: 'ExecutionAuthorized',
          data: {
            executionId: EXECUTION_ID,
            basis: 'session_grant',
            policyVersion: POLICY,
            approvalId: null,
            authorizedAt: NOW.toISOString(),
          },
        },
      ]);
  });

  it('rung 3, automatic: without an agent process, the actor itself is the process', () => {
    expect(decideAuthorization(input({ sessionGrant: null }, 'none', null)).grant?.agentProcess).toBe(automatic.id);
  });

  it('rung 3, human: given a new agent process, a human approval is requested and nothing is granted', () => {
    const decision = decideAuthorization(input({ actor: { ...automatic, sessionGrant: 'human' }, sessionGrant: null }));
    expect(decision).toMatchObject({ rung: 'session_approval', grant: null });
    given(accepted())
      .when(decision.command)
      .then([
        {
          type: 'ApprovalRequested',
          data: {
            executionId: EXECUTION_ID,
            approvalId: approvalIdFor(EXECUTION_ID),
            fingerprint: FINGERPRINT,
            policyVersion: POLICY,
            reason: 'New agent process needs a session grant: mcp-sess-a1 of agent:billing-bot.',
            kind: 'session',
            expiresAt: new Date(NOW.getTime() + TTL).toISOString(),
            requestedAt: NOW.toISOString(),
          },
        },
      ]);
  });

  it('rung 3, human: given a process that already has a grant, no approval is needed', () => {
    expect(decideAuthorization(input({ actor: { ...automatic, sessionGrant: 'human' } })).rung).toBe('authorized');
  });

  it('rung 4: given a per-use tool, a human approval is requested even with a session grant', () => {
    const decision = decideAuthorization(input({}, 'per_use'));
    expect(decision).toMatchObject({ rung: 'per_use_approval', grant: null });
    const state = given(accepted('per_use'))
      .when(decision.command)
      .then([expect.objectContaining({ type: 'ApprovalRequested' })]);
    expect(state.status).toBe('awaiting_approval');
    expect(decision.command.data).toMatchObject({
      reason: 'create_invoice uses a per-use credential: every call needs a human approval.',
      expiresInMs: TTL,
      kind: 'per_use',
    });
  });

  it('rung 4 after an automatic rung 3: the new process gets its grant, and the per-use call still waits for a human', () => {
    const decision = decideAuthorization(input({ sessionGrant: null }, 'per_use'));
    expect(decision.rung).toBe('per_use_approval');
    expect(decision.grant?.basis).toBe('automatic');
  });

  it('rung 4 reads the contract as configured now when it is stricter than at acceptance', () => {
    const decision = decideAuthorization(input({ contractApproval: 'per_use' }, 'none'));
    expect(decision.rung).toBe('per_use_approval');
    given(accepted('none'))
      .when(decision.command)
      .then([expect.objectContaining({ type: 'ApprovalRequested' })]);
  });

  it('rung 5: given an allowed actor with a grant and no per-use credential, the call is authorized by policy', () => {
    for (const approval of ['none', 'session'] as const) {
      const decision = decideAuthorization(input({}, approval));
      expect(decision).toMatchObject({
        rung: 'authorized',
        grant: null,
        command: { type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: POLICY } },
      });
      given(accepted(approval))
        .when(decision.command)
        .then([expect.objectContaining({ type: 'ExecutionAuthorized' })]);
    }
  });
});

describe('a human session grant for a per-use call', () => {
  it('asks once: a session approval whose reason says it also covers this one per-use call', () => {
    const decision = decideAuthorization(input({ actor: { ...automatic, sessionGrant: 'human' }, sessionGrant: null }, 'per_use'));
    expect(decision).toMatchObject({ rung: 'session_approval', grant: null });
    expect(decision.command.data).toMatchObject({
      kind: 'session',
      reason: expect.stringContaining('also uses a per-use credential: this approval covers this one call'),
    });
  });
});

describe('approval ids', () => {
  it('map one-to-one onto execution ids; anything else is not an approval id', () => {
    expect(executionIdOfApproval(approvalIdFor(EXECUTION_ID))).toBe(EXECUTION_ID);
    for (const bad of [
      'apr_',
      'apr_short',
      `exe_${EXECUTION_ID.slice(4)}`,
      `apr_${EXECUTION_ID.slice(4)}x`,
      `apr_${EXECUTION_ID.slice(4).toLowerCase()}`,
    ])
      expect(executionIdOfApproval(bad)).toBeNull();
  });
});

describe('effectiveApproval', () => {
  it('takes the stricter of accepted and configured; a tool no longer declared keeps what it was accepted under', () => {
    expect(effectiveApproval('none', 'per_use')).toBe('per_use');
    expect(effectiveApproval('per_use', 'none')).toBe('per_use');
    expect(effectiveApproval('session', null)).toBe('session');
    expect(effectiveApproval('none', 'session')).toBe('session');
  });
});
