import type { ExecutionEvent, ExecutionEventEnvelope } from '@onceport/contracts';
import { foldEvents } from '@onceport/domain';
import type { LaterExecution, TracedEvent } from './traced-event';
import { clause, listed } from './wording';

type Of<T extends ExecutionEvent['type']> = Extract<ExecutionEventEnvelope, { type: T }>;

/** The five questions of an investigation, each answered in a word a script can test and a sentence a person can read. */
export interface Investigation {
  readonly executionId: string;
  readonly state: string;
  readonly agentProcesses: {
    readonly answer: 'one' | 'two' | 'more' | 'unknown';
    readonly processes: readonly string[];
    readonly sentence: string;
  };
  readonly firstCall: { readonly authorized: boolean; readonly dispatched: boolean; readonly sentence: string };
  readonly targetAnswered: {
    readonly answer: 'yes' | 'no' | 'unknown' | 'settled';
    readonly targetStatus: number | null;
    readonly sentence: string;
  };
  readonly deliveryFailedAfterCompletion: { readonly answer: 'yes' | 'no' | 'not_applicable'; readonly sentence: string };
  readonly laterCalls: {
    readonly attached: number;
    readonly idempotencyKeys: readonly string[];
    readonly redispatchAttempts: number;
    readonly newExecutions: readonly string[];
    readonly sentence: string;
  };
}

export function investigate(executionId: string, traced: readonly TracedEvent[], later: readonly LaterExecution[]): Investigation {
  const events = traced.flatMap((t) => (t.event ? [t.event] : []));
  const find = <T extends ExecutionEvent['type']>(type: T): Of<T>[] => events.filter((e): e is Of<T> => e.type === type);
  const accepted = find('ExecutionAccepted')[0];
  const state = foldEvents(events).status;
  if (!accepted) {
    const none = `no ExecutionAccepted for ${executionId}: nothing to investigate`;
    return {
      executionId,
      state,
      agentProcesses: { answer: 'unknown', processes: [], sentence: none },
      firstCall: { authorized: false, dispatched: false, sentence: none },
      targetAnswered: { answer: 'unknown', targetStatus: null, sentence: none },
      deliveryFailedAfterCompletion: { answer: 'not_applicable', sentence: none },
      laterCalls: { attached: 0, idempotencyKeys: [], redispatchAttempts: 0, newExecutions: [], sentence: none },
    };
  }
  const retries = find('RetryAttached');
  return {
    executionId,
    state,
    agentProcesses: agentProcesses(accepted, retries, later),
    firstCall: firstCall(find),
    targetAnswered: targetAnswered(find),
    deliveryFailedAfterCompletion: delivery(find),
    laterCalls: laterCalls(accepted, retries, find('DispatchStarted'), later),
  };
}

type Finder = <T extends ExecutionEvent['type']>(type: T) => Of<T>[];

function agentProcesses(
  accepted: Of<'ExecutionAccepted'>,
  retries: Of<'RetryAttached'>[],
  later: readonly LaterExecution[],
): Investigation['agentProcesses'] {
  const first = accepted.data.agentProcess;
  const others = [
    ...retries.map((r) => ({ process: r.data.agentProcess, at: r.data.attachedAt, how: 'attached to this execution' })),
    ...later.map((l) => ({ process: l.agentProcess, at: l.acceptedAt, how: `became a new execution ${l.executionId}` })),
  ];
  const processes = [...new Set([first, ...others.map((o) => o.process)].filter((p): p is string => p !== null))];
  if (first === null) {
    const named = processes.length
      ? `; later calls came from ${listed(processes, ', ')}`
      : others.length
        ? `, and neither did the later call${others.length > 1 ? 's' : ''}`
        : '';
    return {
      answer: 'unknown',
      processes,
      sentence: `Cannot tell: the first call named no agent process (a REST call without an Onceport-Agent-Process header counts as its actor, ${accepted.data.actor})${named}.`,
    };
  }

  const newcomers = others.filter((o) => o.process !== null && o.process !== first);
  if (newcomers.length === 0) {
    const later =
      others.length === 1
        ? ', and the later call came from the same process'
        : others.length > 1
          ? `, and the ${others.length} later calls came from the same process`
          : '';
    return { answer: 'one', processes, sentence: `One agent process: ${first} made the call${later}.` };
  }
  const described = listed(
    newcomers.map((o) => `${o.process} called again at ${o.at} and ${o.how}`),
    '; ',
  );
  const answer = processes.length === 2 ? 'two' : 'more';
  return {
    answer,
    processes,
    sentence: `${answer === 'two' ? 'Two' : processes.length} agent processes: ${first} made the first call; ${described} — a reconnected or restarted agent, not the same connection.`,
  };
}

function firstCall(find: Finder): Investigation['firstCall'] {
  const authorized = find('ExecutionAuthorized')[0];
  const granted = find('ApprovalGranted')[0];
  const requested = find('ApprovalRequested')[0];
  const denied = find('ExecutionDenied')[0];
  const rejected = find('ApprovalRejected')[0];
  const firstDispatch = find('DispatchStarted').find((d) => d.data.attempt === 1) ?? find('DispatchStarted')[0];
  const failedBeforeSend = find('DispatchFailedBeforeSend')[0];
  let how: string;
  if (authorized)
    how = `Authorized by ${authorized.data.basis.replace(/_/g, ' ')} (policy ${authorized.data.policyVersion}) at ${authorized.data.authorizedAt}`;
  else if (granted) how = `Approved by ${granted.data.approver} at ${granted.data.decidedAt}`;
  else if (rejected)
    return {
      authorized: false,
      dispatched: false,
      sentence: `No: the approval was rejected by ${rejected.data.approver} at ${rejected.data.decidedAt}${rejected.data.reason ? ` (${rejected.data.reason})` : ''}; nothing was dispatched.`,
    };
  else if (denied)
    return {
      authorized: false,
      dispatched: false,
      sentence: `No: denied (${denied.data.code}) at ${denied.data.deniedAt}: ${clause(denied.data.reason)}; nothing was dispatched.`,
    };
  else if (requested)
    return {
      authorized: false,
      dispatched: false,
      sentence: `Not yet: waiting for human approval ${requested.data.approvalId} (requested ${requested.data.requestedAt}, expires ${requested.data.expiresAt}); nothing was dispatched.`,
    };
  else
    return {
      authorized: false,
      dispatched: false,
      sentence: 'Not yet: accepted, but no authorization decision is recorded; nothing was dispatched.',
    };
  if (granted && authorized) how += ` on approval ${granted.data.approvalId} by ${granted.data.approver}`;
  if (firstDispatch) {
    return {
      authorized: true,
      dispatched: true,
      sentence: `Yes: ${how}; dispatch attempt ${firstDispatch.data.attempt} started at ${firstDispatch.data.startedAt} on ${firstDispatch.data.dispatcherId}.`,
    };
  }
  const why = failedBeforeSend ? `: dispatch failed before anything was sent (${clause(failedBeforeSend.data.reason)})` : '';
  return { authorized: true, dispatched: false, sentence: `Authorized, but never dispatched${why}. ${how}.` };
}

function targetAnswered(find: Finder): Investigation['targetAnswered'] {
  const observed = find('OutcomeObserved')[0];
  if (observed) {
    const verdict = observed.data.succeeded ? 'succeeded' : 'refused';
    return {
      answer: 'yes',
      targetStatus: observed.data.targetStatus,
      sentence: `Yes: the target answered status ${observed.data.targetStatus} (${verdict}) at ${observed.data.observedAt}, attempt ${observed.data.attempt}.`,
    };
  }
  const unknown = find('OutcomeUnknown')[0];
  if (unknown) {
    const probes = find('ProbeAttempted');
    const settled = find('OutcomeSettled')[0];
    const resolved = find('ReviewResolved')[0];
    let sentence = `No answer reached Onceport: ${clause(unknown.data.reason)} (attempt ${unknown.data.attempt}, ${unknown.data.detectedAt}); the outcome was unknown`;
    if (probes.length)
      sentence += `, ${probes.length} probe${probes.length > 1 ? 's' : ''} (last verdict ${probes[probes.length - 1]?.data.verdict})`;
    if (settled) sentence += `; settled as ${settled.data.settlement} at ${settled.data.settledAt}: ${clause(settled.data.reason)}`;
    if (resolved)
      sentence += `; a reviewer (${resolved.data.reviewer}) resolved it as ${resolved.data.resolution}: ${clause(resolved.data.reason)}`;
    return {
      answer: settled || resolved ? 'settled' : 'unknown',
      targetStatus: settled?.data.targetStatus ?? null,
      sentence: `${sentence}.`,
    };
  }
  const failed = find('DispatchFailedBeforeSend')[0];
  if (failed)
    return {
      answer: 'no',
      targetStatus: null,
      sentence: `No: nothing reached the target — ${clause(failed.data.reason)} (before sending, attempt ${failed.data.attempt}).`,
    };
  if (find('DispatchStarted').length)
    return { answer: 'unknown', targetStatus: null, sentence: 'Not yet: dispatched, and neither an answer nor a timeout is recorded.' };
  return { answer: 'no', targetStatus: null, sentence: 'No: it was never dispatched.' };
}

function delivery(find: Finder): Investigation['deliveryFailedAfterCompletion'] {
  const completedAt = completionOf(find);
  if (!completedAt)
    return {
      answer: 'not_applicable',
      sentence: 'Not applicable: the target did not complete the operation, so there was no result to deliver.',
    };
  const deliveries = find('ResultDelivered');
  const first = deliveries[0];
  if (!first) {
    return {
      answer: 'yes',
      sentence: `Yes: the target completed at ${completedAt}, but no delivery is recorded — the caller never got the result; it is kept for a retry (state completed_result_not_delivered).`,
    };
  }
  if (!first.data.replay)
    return {
      answer: 'no',
      sentence: `No: the result reached the original request at ${first.data.deliveredAt} (${first.data.transport}).`,
    };
  return {
    answer: 'yes',
    sentence: `Yes: the target completed at ${completedAt}, but the original request never received the result (its connection was gone); it was delivered at ${first.data.deliveredAt} as a replay to a later call (${describeCorrelation(first.data.correlation)}).`,
  };
}

function completionOf(find: Finder): string | null {
  const observed = find('OutcomeObserved').find((o) => o.data.succeeded);
  if (observed) return observed.data.observedAt;
  const settled = find('OutcomeSettled').find((s) => s.data.settlement === 'completed');
  if (settled) return settled.data.settledAt;
  return find('ReviewResolved').find((r) => r.data.resolution === 'applied')?.data.resolvedAt ?? null;
}

function laterCalls(
  accepted: Of<'ExecutionAccepted'>,
  retries: Of<'RetryAttached'>[],
  dispatches: Of<'DispatchStarted'>[],
  later: readonly LaterExecution[],
): Investigation['laterCalls'] {
  const keys = [accepted.data.clientIdempotencyKey, ...retries.map((r) => r.data.clientIdempotencyKey)].filter(
    (k): k is string => k !== null,
  );
  const redispatchAttempts = dispatches.filter((d) => d.data.attempt > 1).length;
  const parts: string[] = [];
  if (retries.length === 0) parts.push('No later call attached to this execution');
  else {
    const each = retries.map(
      (r) =>
        `${r.data.agentProcess ?? 'a call naming no agent process'} at ${r.data.attachedAt}, answered from ${r.data.stateAtAttach}${r.data.clientIdempotencyKey ? ` with idempotency key ${r.data.clientIdempotencyKey}` : ', no idempotency key'}`,
    );
    parts.push(`${retries.length} later call${retries.length > 1 ? 's' : ''} attached to this execution (${listed(each, '; ')})`);
  }
  parts.push(
    accepted.data.clientIdempotencyKey
      ? `the first call carried idempotency key ${accepted.data.clientIdempotencyKey}`
      : 'the first call carried no idempotency key (matching went by fingerprint)',
  );
  parts.push(
    redispatchAttempts === 0
      ? `no new attempt: ${dispatches.length === 0 ? 'nothing was ever sent to the target' : 'the target was sent the operation once'}`
      : `${redispatchAttempts} re-dispatch attempt${redispatchAttempts > 1 ? 's' : ''} followed (attempts ${listed(
          dispatches.map((d) => String(d.data.attempt)),
          ', ',
        )}), each with the same execution id as the target's key`,
  );
  parts.push(
    later.length === 0
      ? 'no later call with the same fingerprint became a new execution'
      : `${later.length} later call${later.length > 1 ? 's' : ''} with the same fingerprint became new execution${later.length > 1 ? 's' : ''}: ${listed(
          later.map((l) => `${l.executionId} (${l.acceptedAt})`),
          ', ',
        )}`,
  );
  const [head, ...rest] = parts;
  return {
    attached: retries.length,
    idempotencyKeys: keys,
    redispatchAttempts,
    newExecutions: later.map((l) => l.executionId),
    sentence: `${head}; ${rest.join('; ')}.`,
  };
}

function describeCorrelation(correlation: Of<'ResultDelivered'>['data']['correlation']): string {
  const parts: string[] = [correlation.transport];
  if (correlation.sessionId) parts.push(`session ${correlation.sessionId}`);
  if (correlation.jsonRpcId !== null && correlation.jsonRpcId !== undefined) parts.push(`request id ${correlation.jsonRpcId}`);
  if (correlation.requestId) parts.push(`request ${correlation.requestId}`);
  return parts.join(', ');
}
