import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import type { ReplayCheck } from '../types';
import { Badge, ErrorNote } from '../parts/bits';
import { ExecutionLink } from '../parts/execution-link';
import type { Loaded } from '../parts/use-load';

/**
 * The replay check's answer (nothing is started by asking): may attempt n+1 start, and if not, which
 * tools it would send again and why. An operator may force it, with a reason, after confirming.
 */
export function ReplayCheckView({ runId, check, onForced }: { runId: string; check: Loaded<ReplayCheck>; onForced: () => void }) {
  const data = check.data;
  return (
    <section aria-labelledby="replay-check-title" class="card replay-check">
      <h2 id="replay-check-title">Replay check</h2>
      <ErrorNote message={check.error} />
      {data?.safe && (
        <p class="replay-verdict ok">
          Attempt {data.next_attempt} may start: every effect so far is replay-safe, so a replay sends nothing again that was done.
        </p>
      )}
      {data && !data.safe && (
        <>
          <p class="replay-verdict attention">
            Attempt {data.next_attempt} would be refused: a replay could send {data.unsafe_tools.length === 1 ? 'this tool' : 'these tools'}{' '}
            again.
          </p>
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">What a replay could send again</caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Execution</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">State</th>
                  <th scope="col">Why it is unsafe</th>
                </tr>
              </thead>
              <tbody>
                {data.unsafe_tools.flatMap((tool) =>
                  tool.executions.map((execution) => (
                    <tr key={execution.execution_id}>
                      <td>
                        <code>{tool.tool}</code>
                      </td>
                      <td>
                        <ExecutionLink id={execution.execution_id} />
                      </td>
                      <td>{execution.attempt}</td>
                      <td>
                        <Badge value={execution.state} />
                      </td>
                      <td>{execution.why}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </div>
          <ForceReplayForm runId={runId} check={data} onForced={onForced} />
        </>
      )}
    </section>
  );
}

function ForceReplayForm({ runId, check, onForced }: { runId: string; check: ReplayCheck; onForced: () => void }) {
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  // Asked to confirm, keyboard and screen-reader users land on the question's answer.
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  const repeats = check.unsafe_tools.reduce((sum, tool) => sum + tool.executions.length, 0);

  const force = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await api(`runs/${encodeURIComponent(runId)}/replays`, { method: 'POST', body: { reason: reason.trim() } });
      setReason('');
      setConfirming(false);
      onForced();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="reason-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (reason.trim() === '') return setError('Say why: a reason is required to force a replay.');
        setError(null);
        setConfirming(true);
      }}
    >
      <label for="force-reason">Reason for forcing the replay</label>
      <textarea
        id="force-reason"
        rows={2}
        maxLength={1000}
        aria-required="true"
        value={reason}
        onInput={(e) => {
          setReason(e.currentTarget.value);
          setConfirming(false);
        }}
      />
      {!confirming && (
        <div class="actions">
          <button type="submit" class="danger" disabled={busy}>
            Force replay…
          </button>
        </div>
      )}
      {confirming && (
        <div class="confirm" role="group" aria-labelledby="force-question">
          <p id="force-question">
            Start attempt {check.next_attempt} anyway? It may repeat {repeats} effect{repeats === 1 ? '' : 's'} listed above; your name and
            reason are recorded with it.
          </p>
          <div class="actions">
            <button type="button" ref={confirmButton} class="danger" disabled={busy} onClick={() => void force()}>
              Yes, force attempt {check.next_attempt}
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <ErrorNote message={error} />
    </form>
  );
}
