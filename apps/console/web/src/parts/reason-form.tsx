import { useState } from 'preact/hooks';
import { ApiError } from '../api';
import { ErrorNote } from './bits';

export interface FormAction {
  readonly label: string;
  readonly kind: 'primary' | 'danger' | 'plain';
  readonly run: (reason: string) => Promise<unknown>;
}

/** A decision a person signs with a reason: the reason is required, the buttons wait for the answer, a refusal is said. */
export function ReasonForm({
  id,
  label,
  actions,
  onDone,
}: {
  id: string;
  label: string;
  actions: readonly FormAction[];
  onDone: () => void;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (action: FormAction): Promise<void> => {
    if (reason.trim() === '') {
      setError('Say why: a reason is required.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await action.run(reason.trim());
      setReason('');
      onDone();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="reason-form" onSubmit={(event) => event.preventDefault()}>
      <label for={id}>{label}</label>
      <textarea id={id} value={reason} maxLength={1000} rows={2} required onInput={(event) => setReason(event.currentTarget.value)} />
      <div class="actions">
        {actions.map((action) => (
          <button key={action.label} type="button" class={action.kind} disabled={busy} onClick={() => void act(action)}>
            {action.label}
          </button>
        ))}
      </div>
      <ErrorNote message={error} />
    </form>
  );
}
