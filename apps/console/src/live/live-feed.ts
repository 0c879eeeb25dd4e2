import type { ServiceName, UpstreamAnswer } from '../upstream/upstream-client';

/** What changed, as the page is told: it reloads what it shows of that topic. */
export type LiveTopic = 'approvals' | 'reviews' | 'vault' | 'signed_out';

export type Ask = (service: ServiceName, path: string) => Promise<UpstreamAnswer>;

interface Watched {
  readonly topic: Exclude<LiveTopic, 'signed_out'>;
  readonly service: ServiceName;
  readonly path: string;
  /** What of the answer counts as a change (not the whole answer: an approval's expiry clock is not news). */
  readonly digest: (body: unknown) => string;
}

const list = (body: unknown, key: string): Record<string, unknown>[] =>
  typeof body === 'object' && body !== null && Array.isArray((body as Record<string, unknown>)[key])
    ? ((body as Record<string, unknown>)[key] as Record<string, unknown>[])
    : [];

const approvalDigest = (body: unknown): string =>
  JSON.stringify(
    list(body, 'approvals').map((a) => [
      a['approval_id'],
      a['status'],
      a['first_dispatched_at'],
      a['known_outcome'],
      a['retries_attached'],
    ]),
  );

/**
 * The approvals arriving and executions settling (an approval's known outcome, the review queue),
 * and the vault, asked of the services every poll; a topic is announced when its digest changes.
 * The console reads the services over HTTP only, so this polls their admin APIs rather than the store.
 */
const WATCHED: readonly Watched[] = [
  { topic: 'approvals', service: 'authorization', path: '/v1/admin/approvals?status=pending&limit=200', digest: approvalDigest },
  { topic: 'approvals', service: 'authorization', path: '/v1/admin/approvals?status=all&limit=50', digest: approvalDigest },
  {
    topic: 'reviews',
    service: 'reconciler',
    path: '/v1/admin/reviews',
    digest: (body) => JSON.stringify(list(body, 'reviews').map((r) => [r['execution_id'], r['last_probe']])),
  },
  {
    topic: 'vault',
    service: 'authorization',
    path: '/v1/admin/vault',
    digest: (body) => JSON.stringify((body as Record<string, unknown> | null)?.['version'] ?? null),
  },
];

const EVERY_TOPIC: ReadonlySet<LiveTopic> = new Set(WATCHED.map((watched) => watched.topic));

/** One operator's live feed: polls while someone listens, stops when the last listener leaves. */
export class LiveFeed {
  /** Each listener, and whether it joined since the last pass (it has not been told of one yet). */
  private readonly listeners = new Map<(topic: LiveTopic) => void, { fresh: boolean }>();
  private readonly digests = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly ask: Ask,
    private readonly pollMs: number,
    private readonly onError: (service: ServiceName, error: unknown) => void,
  ) {}

  /** Listens; the returned function stops listening. */
  listen(listener: (topic: LiveTopic) => void): () => void {
    this.listeners.set(listener, { fresh: true });
    if (!this.timer) this.timer = setInterval(() => void this.poll(), this.pollMs);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass over what is watched; a pass still running when the next is due is not doubled. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const changed = new Set<LiveTopic>();
      for (const watched of WATCHED) {
        let answer: UpstreamAnswer;
        try {
          answer = await this.ask(watched.service, watched.path);
        } catch (error) {
          this.onError(watched.service, error);
          continue;
        }
        if (answer.status === 401) {
          this.announce('signed_out');
          return;
        }
        if (answer.status !== 200) continue;
        const digest = watched.digest(answer.body);
        const previous = this.digests.get(watched.path);
        this.digests.set(watched.path, digest);
        if (previous !== undefined && previous !== digest) changed.add(watched.topic);
      }
      for (const [listener, seen] of this.listeners) {
        // A page loads what it shows before its stream opens: what changed in between is in no
        // digest's difference, so a new listener is told of every topic once, after its first pass.
        const topics = seen.fresh ? EVERY_TOPIC : changed;
        seen.fresh = false;
        for (const topic of topics) listener(topic);
      }
    } finally {
      this.polling = false;
    }
  }

  private announce(topic: LiveTopic): void {
    for (const listener of this.listeners.keys()) listener(topic);
  }
}
