import { useEffect, useRef } from 'preact/hooks';

export type LiveTopic = 'approvals' | 'reviews' | 'vault' | 'signed_out';

const listeners = new Map<LiveTopic, Set<() => void>>();
let source: EventSource | null = null;

/** One EventSource for the page (opened once signed in); topics fan out to whoever listens. */
export function openLiveFeed(): void {
  if (source) return;
  source = new EventSource('api/events');
  for (const topic of ['approvals', 'reviews', 'vault', 'signed_out'] as const)
    source.addEventListener(topic, () => listeners.get(topic)?.forEach((listener) => listener()));
}

export function closeLiveFeed(): void {
  source?.close();
  source = null;
}

/** Calls `onChange` whenever the console says `topic` changed (another approver, an execution settling…). */
export function useLive(topic: LiveTopic, onChange: () => void): void {
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    const listener = (): void => latest.current();
    const set = listeners.get(topic) ?? new Set();
    set.add(listener);
    listeners.set(topic, set);
    return () => set.delete(listener);
  }, [topic]);
}
