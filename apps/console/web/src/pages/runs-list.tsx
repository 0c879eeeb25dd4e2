import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { href } from '../router';
import type { RunList, RunSummary } from '../types';
import { ErrorNote, When } from '../parts/bits';

const PAGE = 50;

interface Filter {
  readonly actor: string;
  readonly trigger: string;
}

function listPath(filter: Filter, cursor: string | null): string {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (filter.actor) query.set('actor', filter.actor);
  if (filter.trigger) query.set('trigger', filter.trigger);
  if (cursor) query.set('cursor', cursor);
  return `runs?${query.toString()}`;
}

/** Every run, newest first, a page at a time, narrowed to one actor or trigger; each opens the run. */
export function RunsList() {
  const [typed, setTyped] = useState<Filter>({ actor: '', trigger: '' });
  const [filter, setFilter] = useState<Filter>({ actor: '', trigger: '' });
  const [runs, setRuns] = useState<readonly RunSummary[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async (cursor: string | null): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const page = await api<RunList>(listPath(filter, cursor));
      setRuns((shown) => (cursor && shown ? [...shown, ...page.runs] : page.runs));
      setNext(page.next_cursor);
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => void load(null), [filter]);

  return (
    <section aria-labelledby="runs-list-title" class="runs-list-section">
      <h2 id="runs-list-title">Recent runs</h2>
      <form
        class="inline-form"
        role="search"
        aria-label="Filter the runs"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({ actor: typed.actor.trim(), trigger: typed.trigger.trim() });
        }}
      >
        <label for="runs-actor">Actor</label>
        <input
          id="runs-actor"
          value={typed.actor}
          maxLength={200}
          autoComplete="off"
          onInput={(e) => setTyped({ ...typed, actor: e.currentTarget.value })}
        />
        <label for="runs-trigger">Trigger</label>
        <input
          id="runs-trigger"
          value={typed.trigger}
          maxLength={190}
          autoComplete="off"
          onInput={(e) => setTyped({ ...typed, trigger: e.currentTarget.value })}
        />
        <button type="submit">Filter</button>
      </form>
      <ErrorNote message={error} />
      {runs && runs.length === 0 && <p class="muted">No runs{filter.actor || filter.trigger ? ' match this filter' : ' yet'}.</p>}
      {runs && runs.length > 0 && (
        <div class="table-scroll">
          <table class="runs-list">
            <caption class="visually-hidden">Runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Actor</th>
                <th scope="col">Trigger</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last activity</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.run_id}>
                  <td>
                    <a href={href('runs', run.run_id)}>
                      <code>{run.run_id}</code>
                    </a>
                  </td>
                  <td>{run.actor}</td>
                  <td>
                    <code>{run.trigger}</code>
                  </td>
                  <td>{run.attempts}</td>
                  <td>
                    <When at={run.last_activity_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => void load(next)}>
            Show older runs
          </button>
        </div>
      )}
    </section>
  );
}
