import { Agent, request } from 'undici';

/** One intent the load generator asked for, and what became of it as the agent saw it. */
export interface IntentRecord {
  readonly project: string;
  readonly version: string;
  readonly startedAt: number;
  answeredAt: number | null;
  /** Every execution id intake named for this intent, over all its retries (more than one: a split identity). */
  readonly executionIds: Set<string>;
  /** The state in the last answer. */
  state: string | null;
  attempts: number;
  /** The first error that made it retry, for the report. */
  firstError: string | null;
}

export interface OpenLoopOptions {
  /** Calls started per second, whatever the answers take (an open loop: a slow gateway does not slow the load). */
  readonly ratePerSecond: number;
  readonly seconds: number;
  /** Intake replicas' URLs now (a restarted replica may listen on a new port). */
  readonly intakeUrls: () => readonly string[];
  readonly apiKey: string;
  readonly prefix: string;
  /** An intent still unanswered after this long is given up (reported, never silently dropped). */
  readonly giveUpMs: number;
  /** Calls in flight at most; past it a due call is shed and counted, so a stalled gateway cannot exhaust the generator. */
  readonly maxInFlight: number;
}

export interface OpenLoopResult {
  readonly records: readonly IntentRecord[];
  /** Calls due while `maxInFlight` were still waiting: never sent. */
  readonly shed: number;
}

/** How long intake may hold a call for its answer (REST `wait_ms`). */
const ANSWER_WAIT_MS = 10_000;

/**
 * Starts `ratePerSecond` distinct deployments a second over REST, round robin over the intake
 * replicas. A call that fails on the way (a refused connection, a reset, a 5xx while a part is
 * down) is retried with the same intent on the next replica, as an agent's retry middleware would:
 * the gateway must turn every retry into the same execution, never a second effect.
 */
export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const dispatcher = new Agent({ connections: 512, keepAliveTimeout: 10_000, connect: { timeout: 5_000 } });
  const records: IntentRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  let shed = 0;
  let issued = 0;
  const started = Date.now();
  const deadline = started + options.seconds * 1000;
  try {
    while (Date.now() < deadline) {
      const due = Math.floor(((Date.now() - started) / 1000) * options.ratePerSecond);
      for (; issued < due; issued += 1) {
        if (inFlight.size >= options.maxInFlight) {
          shed += 1;
          continue;
        }
        const record: IntentRecord = {
          project: `${options.prefix}-${issued}`,
          version: `v${started}.${issued}`,
          startedAt: Date.now(),
          answeredAt: null,
          executionIds: new Set(),
          state: null,
          attempts: 0,
          firstError: null,
        };
        records.push(record);
        const call = callUntilAnswered(record, issued, options, dispatcher).finally(() => inFlight.delete(call));
        inFlight.add(call);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(inFlight);
  } finally {
    await dispatcher.close();
  }
  return { records, shed };
}

async function callUntilAnswered(record: IntentRecord, index: number, options: OpenLoopOptions, dispatcher: Agent): Promise<void> {
  const giveUpAt = record.startedAt + options.giveUpMs;
  while (Date.now() < giveUpAt) {
    const urls = options.intakeUrls();
    const url = urls[(index + record.attempts) % urls.length];
    record.attempts += 1;
    try {
      const answer = await postDeployment(url ?? '', options.apiKey, record, dispatcher);
      if (answer.ok) {
        if (answer.executionId) record.executionIds.add(answer.executionId);
        record.state = answer.state;
        record.answeredAt = Date.now();
        return;
      }
      record.firstError ??= answer.error;
      if (!answer.retryable) return;
    } catch (error) {
      record.firstError ??= error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 200) : String(error).slice(0, 200);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** Math.min(record.attempts, 5))));
  }
}

export type DeploymentAnswer =
  | { readonly ok: true; readonly executionId: string | null; readonly state: string | null }
  | { readonly ok: false; readonly error: string; readonly retryable: boolean };

/** One REST call for one deployment intent; a network error throws. */
export async function postDeployment(
  url: string,
  apiKey: string,
  intent: { readonly project: string; readonly version: string },
  dispatcher: Agent,
): Promise<DeploymentAnswer> {
  const response = await request(`${url}/v1/executions`, {
    method: 'POST',
    dispatcher,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tool: 'create_deployment',
      arguments: { project: intent.project, environment: 'staging', version: intent.version },
      wait_ms: ANSWER_WAIT_MS,
    }),
    headersTimeout: ANSWER_WAIT_MS + 20_000,
    bodyTimeout: ANSWER_WAIT_MS + 20_000,
  });
  const text = await response.body.text();
  if (response.statusCode < 300) {
    const body = JSON.parse(text) as { execution_id?: string; state?: string };
    return { ok: true, executionId: body.execution_id ?? null, state: body.state ?? null };
  }
  return {
    ok: false,
    error: `HTTP ${response.statusCode}: ${text.slice(0, 200)}`,
    // A refusal a retry cannot change (a bad request, an unknown tool) would only repeat.
    retryable: response.statusCode >= 500 || response.statusCode === 429 || response.statusCode === 409,
  };
}
