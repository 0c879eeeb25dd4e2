import { useState } from 'preact/hooks';
import { api } from '../api';
import { useLive } from '../live';
import { href } from '../router';
import type { Divergence, ReplayCheck, RunExecution, RunReport } from '../types';
import { Badge, ErrorNote, Facts, PageHeading, When } from '../parts/bits';
import { useLoad } from '../parts/use-load';
import { ExecutionLink } from '../parts/execution-link';
import { ReplayCheckView } from './replay-check';
import { RunsList } from './runs-list';

/** Runs: every run newest first, or one opened by id (an admin key reads any): its attempts, the replay check, the divergence. */
export function RunsPage({ runId }: { runId: string | null }) {
  const [typed, setTyped] = useState(runId ?? '');
  return (
    <section aria-labelledby="page-title">
      <PageHeading title={runId ? `Run ${runId}` : 'Runs'} />
      <form
        class="inline-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          if (typed.trim()) location.hash = href('runs', typed.trim());
        }}
      >
        <label for="run-id">Run id</label>
        <input id="run-id" value={typed} maxLength={100} autoComplete="off" onInput={(e) => setTyped(e.currentTarget.value)} />
        <button type="submit">Open</button>
      </form>
      {runId ? <RunDetail key={runId} runId={runId} /> : <RunsList />}
    </section>
  );
}

function RunDetail({ runId }: { runId: string }) {
  const id = encodeURIComponent(runId);
  const run = useLoad(() => api<RunReport>(`runs/${id}`), runId);
  const divergence = useLoad(() => api<Divergence>(`runs/${id}/divergence`), runId);
  const check = useLoad(() => api<ReplayCheck>(`runs/${id}/replay-check`), runId);
  const reload = (): void => {
    run.reload();
    divergence.reload();
    check.reload();
  };
  useLive('approvals', reload);
  useLive('reviews', reload);
  return (
    <>
      <ErrorNote message={run.error ?? divergence.error} />
      {run.data && (
        <>
          <Facts
            rows={[
              ['Actor', run.data.actor],
              ['Trigger', <code>{run.data.trigger}</code>],
              ['Opened', <When at={run.data.opened_at} />],
              ['Current attempt', String(run.data.attempt)],
            ]}
          />
          <h2>Attempts</h2>
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Attempt</th>
                  <th scope="col">Started</th>
                  <th scope="col">Asked by</th>
                  <th scope="col">Replay check</th>
                </tr>
              </thead>
              <tbody>
                {run.data.attempts.map((attempt) => (
                  <tr key={attempt.attempt}>
                    <td>{attempt.attempt}</td>
                    <td>
                      <When at={attempt.started_at} />
                    </td>
                    <td>{attempt.requested_by}</td>
                    <td>
                      {attempt.attempt === 1
                        ? 'first attempt'
                        : attempt.forced
                          ? `forced by ${attempt.forced.by} over ${attempt.forced.unsafe_count} unsafe effect(s): ${attempt.forced.reason}`
                          : 'safe: every earlier effect replay-safe'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ReplayCheckView runId={runId} check={check} onForced={reload} />
        </>
      )}
      {divergence.data && (
        <>
          <h2>Divergence</h2>
          {divergence.data.attempts.map((attempt) => (
            <section key={attempt.attempt} class="card" aria-labelledby={`attempt-${attempt.attempt}`}>
              <h3 id={`attempt-${attempt.attempt}`}>Attempt {attempt.attempt}</h3>
              <EffectList title="Done earlier, not requested again" executions={attempt.not_requested_again} emphasis />
              <EffectList title="Still open from earlier attempts" executions={attempt.still_open} emphasis />
              <EffectList title="Requested again" executions={attempt.requested_again} />
              <EffectList title="New in this attempt" executions={attempt.new} />
            </section>
          ))}
        </>
      )}
    </>
  );
}

function EffectList({ title, executions, emphasis = false }: { title: string; executions: readonly RunExecution[]; emphasis?: boolean }) {
  return (
    <details open={emphasis && executions.length > 0} class={emphasis && executions.length > 0 ? 'attention' : undefined}>
      <summary>
        {title}: {executions.length}
      </summary>
      {executions.length > 0 && (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Target</th>
                <th scope="col">State</th>
                <th scope="col">Attempt</th>
                <th scope="col">Accepted</th>
                <th scope="col">Execution</th>
              </tr>
            </thead>
            <tbody>
              {executions.map((execution) => (
                <tr key={execution.execution_id}>
                  <td>
                    <code>{execution.tool}</code>
                  </td>
                  <td>
                    <code>{execution.target}</code>
                  </td>
                  <td>
                    <Badge value={execution.state} />
                  </td>
                  <td>{execution.attempt}</td>
                  <td>
                    <When at={execution.accepted_at} />
                  </td>
                  <td>
                    <ExecutionLink id={execution.execution_id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}
