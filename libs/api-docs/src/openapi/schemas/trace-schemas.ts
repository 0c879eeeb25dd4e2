import { ExecutionId, IsoTimestamp } from '@onceport/contracts';
import { z } from 'zod';
import { named } from '../../json-schema/component-schemas';

const Sentence = z.string().describe('The answer in a sentence a person reads.');
const TraceId = z.string().regex(/^[0-9a-f]{32}$/);

const TimelineEvent = z.object({
  stream_version: z.int().min(1),
  global_position: z.string().describe('Its position in the whole store (a decimal string: a bigint).'),
  at: IsoTimestamp.describe("When it happened (the event's occurredAt, else when it was recorded)."),
  type: z.string(),
  summary: z.string().nullable().describe('What it says, in a line; null when the stored event no longer parses.'),
  parse_error: z.string().nullable(),
  trace_id: TraceId.nullable().describe('The W3C trace id in its metadata.'),
  data: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("The event's data as a trace may show it: an acceptance's arguments withheld (named in arguments_withheld)."),
});

/** The five questions, each a keyword a script tests and a sentence a person reads (`onceport trace --json`). */
const Answers = z.object({
  agent_processes: z.object({ answer: z.enum(['one', 'two', 'more', 'unknown']), processes: z.array(z.string()), sentence: Sentence }),
  first_call_authorized_and_dispatched: z.object({ authorized: z.boolean(), dispatched: z.boolean(), sentence: Sentence }),
  target_answered: z.object({
    answer: z.enum(['yes', 'no', 'unknown', 'settled']),
    target_status: z.int().nullable(),
    sentence: Sentence,
  }),
  delivery_failed_after_completion: z.object({ answer: z.enum(['yes', 'no', 'not_applicable']), sentence: Sentence }),
  later_calls: z.object({
    attached: z.int().min(0),
    idempotency_keys: z.array(z.string()),
    redispatch_attempts: z.int().min(0),
    new_executions: z.array(ExecutionId),
    sentence: Sentence,
  }),
});

export const ExecutionTrace = named(
  'ExecutionTrace',
  z
    .object({
      execution_id: ExecutionId,
      state: z.string().describe('Its state now, folded from the events shown.'),
      event_count: z.int().min(0).describe('Events in its stream.'),
      timeline_capped: z.boolean().describe('True when the stream holds more events than the timeline shows (the first 500).'),
      trace_ids: z.array(TraceId).max(20).describe('The distinct trace ids the events carry, in order: open them in the tracing backend.'),
      timeline: z.array(TimelineEvent).max(500),
      later_executions: z
        .array(
          z.object({
            execution_id: ExecutionId,
            agent_process: z.string().nullable(),
            client_idempotency_key: z.string().nullable(),
            accepted_at: IsoTimestamp,
          }),
        )
        .max(50)
        .describe('Later calls of the same intent (fingerprint, actor, intent scope) that became executions of their own.'),
      answers: Answers,
    })
    .describe('One execution investigated, as `onceport trace --json` answers.'),
);
