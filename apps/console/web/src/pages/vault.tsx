import { api } from '../api';
import { useLive } from '../live';
import type { Vault } from '../types';
import { Badge, ErrorNote, Facts, PageHeading, When } from '../parts/bits';
import { ReasonForm } from '../parts/reason-form';
import { useLoad } from '../parts/use-load';

/** The vault: locked, every new call is denied with the operator's reason; unlocked, calls go on. */
export function VaultPage() {
  const vault = useLoad(() => api<Vault>('vault'), 'vault');
  useLive('vault', vault.reload);
  const state = vault.data;
  const change = (to: 'lock' | 'unlock') => (reason: string) => api(`vault/${to}`, { method: 'POST', body: { reason } });
  return (
    <section aria-labelledby="page-title">
      <PageHeading title="Vault" />
      <ErrorNote message={vault.error} />
      {state && (
        <>
          <p class={`vault-state vault-${state.status}`} role="status">
            The vault is <Badge value={state.status} />
            {state.status === 'locked'
              ? ': every new call is denied until an operator unlocks it.'
              : ': calls are decided by the rest of the ladder.'}
          </p>
          <Facts
            rows={[
              ['Last changed by', state.by ?? 'nobody yet'],
              ['Reason', state.reason ?? '—'],
              ['Since', <When at={state.since} />],
            ]}
          />
          <ReasonForm
            id="vault-reason"
            label={state.status === 'locked' ? 'Reason for unlocking' : 'Reason for locking'}
            onDone={vault.reload}
            actions={
              state.status === 'locked'
                ? [{ label: 'Unlock the vault', kind: 'primary', run: change('unlock') }]
                : [{ label: 'Lock the vault', kind: 'danger', run: change('lock') }]
            }
          />
        </>
      )}
    </section>
  );
}
