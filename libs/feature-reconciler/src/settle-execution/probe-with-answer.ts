import type { JsonValue } from '@onceport/contracts';
import type { HttpProbe, HttpToolContract } from '@onceport/domain';
import { type HttpChannel, type ObservedResponse, type ProbeResult, judgeProbe } from '@onceport/http-channel';

export interface ProbeInput {
  readonly contract: HttpToolContract & { readonly probe: HttpProbe };
  readonly executionId: string;
  readonly arguments: Readonly<Record<string, JsonValue>>;
  readonly credential: string | null;
  readonly traceHeaders: Readonly<Record<string, string>>;
}

/** The probe's verdict, and the target's answer when it gave one (kept as the result of an applied probe). */
export interface ProbeWithAnswer {
  readonly result: ProbeResult;
  readonly answer: ObservedResponse | null;
}

/**
 * Runs the contract's probe as one plain exchange and judges it exactly as `HttpChannel.probe`
 * does, but keeps the answer: when the probe proves the effect applied, its body is the only
 * result the agent will ever get (the original answer was lost with the dispatch). The probe is
 * sent as a body-less request on the probe's method and path, without the idempotency header
 * (a read must not look like a new call), with `{execution_id}` filled like a placeholder.
 */
export async function probeWithAnswer(channel: HttpChannel, input: ProbeInput): Promise<ProbeWithAnswer> {
  const { contract } = input;
  const probing: HttpToolContract = {
    ...contract,
    target: { ...contract.target, method: contract.probe.method, path: contract.probe.path, body: 'none', idempotencyHeader: null },
  };
  const outcome = await channel.send({
    contract: probing,
    executionId: input.executionId,
    // execution_id last: a tool argument of that name must not redirect the probe.
    arguments: { ...input.arguments, execution_id: input.executionId },
    credential: input.credential,
    traceHeaders: input.traceHeaders,
  });
  // The channel already replaced an echoed credential in the body and reasons it reports.
  return { result: judgeProbe(contract.probe, outcome), answer: outcome.kind === 'observed' ? outcome : null };
}
