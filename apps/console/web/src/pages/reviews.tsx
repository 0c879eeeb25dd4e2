import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { useLive } from '../live';
import type { Review } from '../types';
import { Badge, ErrorNote, Facts, PageHeading, When } from '../parts/bits';
import { RecordView } from '../parts/record-view';
import { ExecutionLink } from '../parts/execution-link';
import { useLoad } from '../parts/use-load';

/** The review queue: executions machines could not settle, each resolved by a person's verdict with a reason. */
export function ReviewsPage() {
  const reviews = useLoad(() => api<{ reviews: Review[] }>('reviews'), 'reviews');
  useLive('reviews', reviews.reload);
  const list = reviews.data?.reviews ?? [];
  return (
    <section aria-labelledby="page-title">
      <PageHeading title="Reviews" />
      <ErrorNote message={reviews.error} />
      <p class="muted" aria-live="polite">
        {reviews.data ? `${list.length} execution${list.length === 1 ? '' : 's'} waiting for a verdict` : 'Loading…'}
      </p>
      <ol class="cards">
        {list.map((review) => (
          <li key={review.execution_id}>
            <ReviewCard review={review} onResolved={reviews.reload} />
          </li>
        ))}
      </ol>
    </section>
  );
}

function ReviewCard({ review, onResolved }: { review: Review; onResolved: () => void }) {
  const [verdict, setVerdict] = useState<'applied' | 'not_applied' | ''>('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = review.execution_id;
  const resolve = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (!verdict) return setError('Choose a verdict: did it happen at the target or not?');
    if (reason.trim() === '') return setError('Say why: a reason is required.');
    setBusy(true);
    setError(null);
    try {
      await api(`reviews/${id}/resolve`, { method: 'POST', body: { resolution: verdict, reason: reason.trim() } });
      onResolved();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="card review" aria-labelledby={`h-${id}`} data-execution={id}>
      <h2 id={`h-${id}`}>
        <code>{review.tool}</code> for {review.actor} <Badge value="needs_review" />
      </h2>
      <p>{review.reason}</p>
      <Facts
        rows={[
          ['Execution', <ExecutionLink id={id} />],
          ['In review since', <When at={review.since} />],
          ['Dispatch attempts', String(review.attempts)],
          [
            'Last probe',
            review.last_probe ? (
              <span>
                #{review.last_probe.probe_number} <Badge value={review.last_probe.verdict} /> {review.last_probe.detail} (
                <When at={review.last_probe.probed_at} />)
              </span>
            ) : (
              'no probe ran'
            ),
          ],
        ]}
      />
      <RecordView record={review.record} />
      <form class="reason-form" onSubmit={(event) => void resolve(event)}>
        <fieldset>
          <legend>Verdict</legend>
          <label class="inline">
            <input
              type="radio"
              name={`verdict-${id}`}
              value="applied"
              checked={verdict === 'applied'}
              onChange={() => setVerdict('applied')}
            />{' '}
            It happened at the target (applied)
          </label>
          <label class="inline">
            <input
              type="radio"
              name={`verdict-${id}`}
              value="not_applied"
              checked={verdict === 'not_applied'}
              onChange={() => setVerdict('not_applied')}
            />{' '}
            It did not happen (not applied)
          </label>
        </fieldset>
        <label for={`review-reason-${id}`}>Reason for the verdict</label>
        <textarea id={`review-reason-${id}`} rows={2} maxLength={1000} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Resolve
          </button>
        </div>
        <ErrorNote message={error} />
      </form>
    </article>
  );
}
