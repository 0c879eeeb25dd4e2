import { EffectClass, ExecutionId, ExecutionStatus, IsoTimestamp, JsonValue, RunId, RunTrigger } from '@onceport/contracts';
import { z } from 'zod';
import { named } from '../../json-schema/component-schemas';

/** `run` of a call (REST) — the same object as MCP `_meta["onceport/run"]`. */
const RunReferenceInput = z
  .strictObject({
    id: RunId,
    trigger: RunTrigger.optional().describe('Opens the run on its first call; another trigger under the same id → 409.'),
    attempt: z.int().min(1).max(10_000).optional().describe("Default: the run's current attempt."),
  })
  .describe('The run the call belongs to (README "Runs and replays").');

export const ExecutionRequest = named(
  'ExecutionRequest',
  z
    .strictObject({
      tool: z.string().min(1).max(128),
      arguments: z.record(z.string(), JsonValue).optional().describe('A JSON object checked against the tool contract; absent = {}.'),
      run: RunReferenceInput.optional(),
      repeat: z
        .strictObject({ reason: z.string().min(1).max(500) })
        .optional()
        .describe('A deliberate second effect of an intent that would match.'),
      intent_scope: z.string().min(1).max(200).optional().describe('Outside runs; default `default:<actor>`. Not together with `run`.'),
      wait_ms: z.int().min(0).optional().describe('How long to wait for the outcome; above ONCEPORT_MAX_WAIT_MS it is shortened.'),
      actor: z.string().optional().describe("An actor claim: checked against the key's actor (else 401), then dropped."),
    })
    .describe('Every string and key: no NUL, no unpaired surrogate; nesting at most 32 levels inside arguments.'),
  'input',
);

const AnswerResult = z.object({
  content_type: z.string().nullable(),
  digest: z.string(),
  size: z.int().min(0),
  body: JsonValue.describe('Parsed JSON when the target answered JSON, otherwise text.'),
});

const AgentAnswerShape = {
  execution_id: ExecutionId,
  tool: z.string(),
  state: ExecutionStatus,
  replay: z.boolean().describe('The result was produced for an earlier call and is handed back, not re-sent.'),
  attached: z.boolean().describe('This call joined an execution an earlier call of the same intent created.'),
  target_status: z.int().nullable(),
  next_step: z.string().describe('One sentence that tells a model what to do next.'),
  result: AnswerResult.nullable(),
  denial: z.object({ code: z.string(), reason: z.string() }).nullable(),
  ledger_hit: z.literal(true).optional().describe("Answered from a completed execution's ledger instead of being sent."),
  run: z.object({ id: RunId, attempt: z.int().min(1) }).optional(),
  repeats: z.object({ execution_id: ExecutionId, deliberate: z.boolean(), reason: z.string().nullable() }).optional(),
};

export const AgentAnswer = named('AgentAnswer', z.object(AgentAnswerShape).describe('The answer to a call, over MCP and REST alike.'));

export const ExecutionWithTimeline = named(
  'ExecutionWithTimeline',
  z.object({
    ...AgentAnswerShape,
    timeline: z.array(
      z.object({ version: z.int().min(1), type: z.string(), at: IsoTimestamp, data: z.unknown().describe("The event's data.") }),
    ),
  }),
);

export const IssuedAgentProcess = named(
  'IssuedAgentProcess',
  z.object({
    agent_process: z.string().regex(/^rap_/),
    actor: z.string(),
    issued_at: IsoTimestamp,
    usage: z.string(),
  }),
);

export const RunOpenRequest = named(
  'RunOpenRequest',
  z.strictObject({ run_id: RunId.optional().describe('Default: an assigned `run_<ulid>`.'), trigger: RunTrigger }),
  'input',
);

export const ReplayRequest = named(
  'ReplayRequest',
  z.strictObject({
    force: z
      .object({ reason: z.string().min(1).max(1000) })
      .optional()
      .describe('Admin key only: start the attempt although the check refused it (audited).'),
  }),
  'input',
);

const RunAttempt = z.object({
  attempt: z.int().min(1),
  started_at: IsoTimestamp,
  requested_by: z.string(),
  forced: z
    .object({ by: z.string(), reason: z.string(), unsafe_count: z.int().min(0) })
    .nullable()
    .optional()
    .describe('Present when an operator forced the attempt past a refused replay check.'),
});

const RunShape = {
  run_id: RunId,
  actor: z.string(),
  trigger: RunTrigger,
  opened_at: IsoTimestamp,
  attempt: z.int().min(1).describe('The current attempt.'),
  attempts: z.array(RunAttempt),
};

export const Run = named('Run', z.object(RunShape));

export const RunList = named(
  'RunList',
  z.object({
    runs: z.array(
      z.object({
        run_id: RunId,
        actor: z.string(),
        trigger: RunTrigger,
        opened_at: IsoTimestamp,
        attempts: z.int().min(1),
        last_attempt_at: IsoTimestamp,
        last_activity_at: IsoTimestamp.describe("The later of the last attempt's start and the run's last call."),
      }),
    ),
    next_cursor: RunId.nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  }),
);

const RunExecution = z.object({
  execution_id: ExecutionId,
  tool: z.string(),
  attempt: z.int().min(1),
  state: ExecutionStatus,
  effect: EffectClass,
  target: z.unknown(),
  accepted_at: IsoTimestamp,
  ledger_retention_ends_at: IsoTimestamp.nullable(),
});

export const RunReport = named(
  'RunReport',
  z.looseObject({
    ...RunShape,
    executions: z.array(z.looseObject(RunExecution.shape)),
    calls_by_attempt: z.array(z.object({ attempt: z.int().min(1), created: z.array(ExecutionId), asked_again: z.array(ExecutionId) })),
  }),
);

export const UnsafeTools = z.array(
  z.object({
    tool: z.string(),
    executions: z.array(
      z.object({ execution_id: ExecutionId, attempt: z.int().min(1), state: ExecutionStatus, reason: z.string(), why: z.string() }),
    ),
  }),
);

export const ReplayCheck = named(
  'ReplayCheck',
  z.object({
    run_id: z.string(),
    attempt: z.int().min(1),
    next_attempt: z.int().min(2),
    safe: z.boolean(),
    unsafe_tools: UnsafeTools,
  }),
);

export const ReplayStarted = named(
  'ReplayStarted',
  z.object({
    ...RunShape,
    replay_check: z.object({ safe: z.boolean(), unsafe_tools: UnsafeTools }),
    forced: z.object({ by: z.string(), reason: z.string(), may_repeat: UnsafeTools }).optional(),
  }),
);

export const DivergenceReport = named(
  'DivergenceReport',
  z.object({
    run_id: RunId,
    attempts: z.array(
      z.object({
        attempt: z.int().min(1),
        requested_again: z.array(z.looseObject(RunExecution.shape)),
        new: z.array(z.looseObject(RunExecution.shape)),
        not_requested_again: z.array(z.looseObject(RunExecution.shape)).describe('Done in an earlier attempt, not asked for in this one.'),
        still_open: z.array(z.looseObject(RunExecution.shape)).describe('Earlier executions unknown or in review.'),
      }),
    ),
  }),
);

export const ProtectedResourceMetadata = named(
  'ProtectedResourceMetadata',
  z.looseObject({ resource: z.string(), authorization_servers: z.array(z.string()) }).describe('RFC 9728 protected resource metadata.'),
);
