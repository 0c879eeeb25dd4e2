import type { JsonValue } from '@onceport/contracts';
import type { HttpToolContract } from '@onceport/domain';
import { Pool } from 'undici';
import { exchange, type Exchanged } from './exchange';
import { failedBeforeSend, type HttpOutcome, type ObservedResponse } from './http-outcome';
import { observedResponse } from './observed-response';
import { isFailure, planRequest, type PlanInput } from './plan-request';
import { judgeProbe, type ProbeResult } from './probe-verdict';
import { redactorFor, type Redactor } from './redactor';
import { DEFAULT_PRESENTATION, type CredentialPresentation } from './request-headers';

/** A probe's verdict, and the target's answer when it gave one. */
export interface ProbeAnswer extends ProbeResult {
  readonly answer: ObservedResponse | null;
}

export interface HttpChannelOptions {
  /** Upper bound of open connections per origin. Default 16. */
  readonly connectionsPerOrigin?: number;
  /** Default 10 s; the contract's `timeoutMs` bounds it too. */
  readonly connectTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept. Default 4 s (server hints may shorten it). */
  readonly keepAliveTimeoutMs?: number;
  /** How the credential is sent. Default `Authorization: Bearer <credential>`. */
  readonly credentialHeader?: Partial<CredentialPresentation>;
}

export interface SendInput {
  readonly contract: HttpToolContract;
  /** Sent in the contract's idempotency header, if it declares one. */
  readonly executionId: string;
  /** Already validated against the contract's schema by the caller. */
  readonly arguments: Readonly<Record<string, JsonValue>>;
  /** The secret resolved from `credentialRef`; null when the contract names none. */
  readonly credential: string | null;
  /** e.g. `traceparent`, `tracestate`; names the gateway owns are dropped. */
  readonly traceHeaders?: Readonly<Record<string, string>>;
}

/**
 * The HTTP channel of the dispatcher and the reconciler (DESIGN.md §9): one keep-alive pool per
 * contract origin, URLs only ever built from contracts, and every exchange reported as observed,
 * failed before send, or unknown.
 *
 * @example
 * const channel = new HttpChannel();
 * const outcome = await channel.send({ contract, executionId, arguments: args, credential });
 * await channel.close();
 */
export class HttpChannel {
  private readonly pools = new Map<string, Pool>();
  private readonly presentation: CredentialPresentation;
  private closed = false;

  constructor(private readonly options: HttpChannelOptions = {}) {
    this.presentation = { ...DEFAULT_PRESENTATION, ...options.credentialHeader };
  }

  async send(input: SendInput): Promise<HttpOutcome> {
    const { target } = input.contract;
    const redactor = redactorFor(input.credential);
    const exchanged = await this.run(input.contract, {
      ...this.common(input),
      method: target.method,
      pathTemplate: target.path,
      body: target.body,
      placeholderOnly: {},
      idempotency: target.idempotencyHeader ? { header: target.idempotencyHeader, value: input.executionId } : null,
      traceHeaders: input.traceHeaders ?? {},
    });
    return toOutcome(exchanged, redactor);
  }

  /**
   * Asks the target whether an execution's effect happened, per the contract's probe. The answer
   * (credential redacted) comes back too: when the probe proves the effect applied, it is the only
   * result the agent will get, since the dispatch's own answer was lost.
   */
  async probe(input: SendInput): Promise<ProbeAnswer> {
    const probe = input.contract.probe;
    if (probe === null) return { verdict: 'cant_tell', detail: 'the contract declares no probe', status: null, answer: null };
    const redactor = redactorFor(input.credential);
    const exchanged = await this.run(input.contract, {
      ...this.common(input),
      method: probe.method,
      pathTemplate: probe.path,
      body: 'none',
      placeholderOnly: { execution_id: input.executionId },
      idempotency: null,
      traceHeaders: input.traceHeaders ?? {},
    });
    const outcome = toOutcome(exchanged, redactor);
    const result = judgeProbe(probe, outcome);
    return { ...result, detail: redactor.redact(result.detail), answer: outcome.kind === 'observed' ? outcome : null };
  }

  /** Stops accepting sends, lets in-flight exchanges finish, closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private common(
    input: SendInput,
  ): Pick<PlanInput, 'origin' | 'staticHeaders' | 'arguments' | 'credentialRef' | 'credential' | 'presentation'> {
    return {
      origin: input.contract.target.origin,
      staticHeaders: input.contract.target.headers,
      arguments: input.arguments,
      credentialRef: input.contract.credentialRef,
      credential: input.credential,
      presentation: this.presentation,
    };
  }

  private async run(contract: HttpToolContract, plan: PlanInput): Promise<Exchanged> {
    if (this.closed) return failedBeforeSend('channel_closed', 'the channel is closed', true);
    const request = planRequest(plan);
    if (isFailure(request)) return request;
    const { timeoutMs, maxResponseBytes } = contract.target;
    return exchange(this.poolFor(request.origin), request, { timeoutMs, maxResponseBytes });
  }

  private poolFor(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.connectionsPerOrigin ?? 16,
        // One request per connection at a time: with pipelining, undici silently re-sends the
        // requests queued behind a failed one on a new connection — a duplicate effect.
        pipelining: 1,
        connect: { timeout: this.options.connectTimeoutMs ?? 10_000 },
        keepAliveTimeout: this.options.keepAliveTimeoutMs ?? 4_000,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

function toOutcome(exchanged: Exchanged, redactor: Redactor): HttpOutcome {
  if (exchanged.kind === 'response') return observedResponse(exchanged, redactor);
  // Error texts can quote what undici was given; scrub them whatever their source.
  return { ...exchanged, reason: redactor.redact(exchanged.reason) };
}
