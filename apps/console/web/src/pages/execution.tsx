import { useState } from 'preact/hooks';
import { api } from '../api';
import { useLive } from '../live';
import { href } from '../router';
import type { ExecutionTrace, TimelineEvent } from '../trace-types';
import { Badge, ErrorNote, Facts, PageHeading, When } from '../parts/bits';
import { ExecutionLink } from '../parts/execution-link';
import { useLoad } from '../parts/use-load';

const EXECUTION_ID = /^exe_[0-9A-HJKMNP-TV-Z]{26}$/;

/** An execution looked up by id: its timeline and the five questions of an investigation, as `onceport trace` answers them. */
export function ExecutionPage({ executionId }: { executionId: string | null }) {
  const [typed, setTyped] = useState(executionId ?? '');
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="page-title">
      <PageHeading title={executionId ? `Execution ${executionId}` : 'Executions'} />
      <form
        class="inline-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          const id = typed.trim();
          if (!EXECUTION_ID.test(id)) return setError('An execution id is exe_ followed by 26 letters and digits (Crockford base32).');
          setError(null);
          location.hash = href('executions', id);
        }}
      >
        <label for="execution-id">Execution id</label>
        <input
          id="execution-id"
          value={typed}
          maxLength={30}
          autoComplete="off"
          spellcheck={false}
          placeholder="exe_…"
          aria-describedby={error ? 'execution-id-error' : undefined}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <button type="submit">Look up</button>
      </form>
      {error && (
        <p id="execution-id-error" class="error" role="alert">
          {error}
        </p>
      )}
      {executionId && <ExecutionDetail key={executionId} executionId={executionId} />}
    </section>
  );
}

function ExecutionDetail({ executionId }: { executionId: string }) {
  const trace = useLoad(() => api<ExecutionTrace>(`executions/${encodeURIComponent(executionId)}`), executionId);
  const session = useLoad(() => api<{ trace_ui_url: string | null }>('session'), 'session');
  // An execution settles, an approval is decided, a review resolved: the trace grows.
  useLive('approvals', trace.reload);
  useLive('reviews', trace.reload);
  const data = trace.data;
  return (
    <>
      <ErrorNote message={trace.error} />
      {data && (
        <>
          <Facts
            rows={[
              ['State now', <Badge value={data.state} />],
              ['Events', data.timeline_capped ? `${data.event_count} (the first ${data.timeline.length} shown)` : String(data.event_count)],
              data.trace_ids.length > 0 && ['Trace', <TraceLinks ids={data.trace_ids} template={session.data?.trace_ui_url ?? null} />],
            ]}
          />
          <Investigation trace={data} />
          {data.later_executions.length > 0 && (
            <>
              <h2>Later executions of the same intent</h2>
              <ul class="plain-list">
                {data.later_executions.map((later) => (
                  <li key={later.execution_id}>
                    <ExecutionLink id={later.execution_id} /> accepted <When at={later.accepted_at} />
                    {later.agent_process && <> from {later.agent_process}</>}
                  </li>
                ))}
              </ul>
            </>
          )}
          <Timeline events={data.timeline} capped={data.timeline_capped} total={data.event_count} />
        </>
      )}
    </>
  );
}

/** The trace ids, each a link into the tracing backend when the console knows one (ONCEPORT_TRACE_UI_URL). */
function TraceLinks({ ids, template }: { ids: readonly string[]; template: string | null }) {
  return (
    <ul class="plain-list">
      {ids.map((id) => (
        <li key={id}>
          {template ? (
            <a href={template.replace('{trace_id}', encodeURIComponent(id))} target="_blank" rel="noopener noreferrer">
              Open trace <code>{id}</code>
            </a>
          ) : (
            <code>{id}</code>
          )}
        </li>
      ))}
    </ul>
  );
}

function Investigation({ trace }: { trace: ExecutionTrace }) {
  const a = trace.answers;
  const first = a.first_call_authorized_and_dispatched;
  const questions: readonly (readonly [string, string, string])[] = [
    ['One agent process or two?', a.agent_processes.answer, a.agent_processes.sentence],
    [
      'Was the first call authorized and dispatched?',
      first.dispatched ? 'dispatched' : first.authorized ? 'authorized' : 'no',
      first.sentence,
    ],
    ['Did the target answer?', a.target_answered.answer, a.target_answered.sentence],
    [
      'Did delivery fail after the target completed?',
      a.delivery_failed_after_completion.answer,
      a.delivery_failed_after_completion.sentence,
    ],
    [
      'Later calls: attached, keyed, new attempt?',
      a.later_calls.attached > 0 ? `${a.later_calls.attached} attached` : 'none attached',
      a.later_calls.sentence,
    ],
  ];
  return (
    <section class="card" aria-labelledby="investigation">
      <h2 id="investigation">Investigation</h2>
      <ol class="questions">
        {questions.map(([question, word, sentence]) => (
          <li key={question}>
            <h3>{question}</h3>
            <p>
              <Badge value={word} /> {sentence}
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Timeline({ events, capped, total }: { events: readonly TimelineEvent[]; capped: boolean; total: number }) {
  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      {capped && (
        <p class="attention">
          Showing the first {events.length} of {total} events; <code>onceport trace</code> prints them all.
        </p>
      )}
      <ol class="timeline">
        {events.map((event) => (
          <li key={event.stream_version} data-type={event.type}>
            <p class="timeline-head">
              <span class="muted">#{event.stream_version}</span> <When at={event.at} /> <strong>{event.type}</strong>
            </p>
            <p>{event.summary ?? <span class="error">does not parse: {event.parse_error}</span>}</p>
            {event.data && (
              <details>
                <summary>Data of event {event.stream_version}</summary>
                <pre>{JSON.stringify(event.data, null, 2)}</pre>
              </details>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
