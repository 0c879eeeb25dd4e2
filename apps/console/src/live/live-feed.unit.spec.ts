import type { UpstreamAnswer } from '../upstream/upstream-client';
import { LiveFeed, type LiveTopic } from './live-feed';

describe('the live feed', () => {
  const approval = (id: string, status: string, outcome: unknown = null) => ({
    approval_id: id,
    status,
    known_outcome: outcome,
    expires_at: 'x',
  });

  it('announces a topic when what matters of it changed, not on every poll', async () => {
    const answers: Record<string, unknown> = {
      pending: { approvals: [] },
      all: { approvals: [] },
      reviews: { reviews: [] },
      vault: { status: 'unlocked', version: 0 },
    };
    const ask = async (_service: string, path: string): Promise<UpstreamAnswer> => {
      const key = path.includes('pending')
        ? 'pending'
        : path.includes('status=all')
          ? 'all'
          : path.includes('reviews')
            ? 'reviews'
            : 'vault';
      return { status: 200, body: answers[key] };
    };
    const heard: LiveTopic[] = [];
    const feed = new LiveFeed(ask, 60_000, () => undefined);
    const stop = feed.listen((topic) => heard.push(topic));
    await feed.poll();
    // The first pass learns the state; the new listener reloads everything once (it may have loaded before a change the pass saw).
    expect(heard).toEqual(['approvals', 'reviews', 'vault']);
    heard.length = 0;

    answers['pending'] = { approvals: [approval('apr_1', 'pending')] };
    await feed.poll();
    expect(heard).toEqual(['approvals']);

    // Only the expiry text changed: no news.
    answers['pending'] = { approvals: [{ ...approval('apr_1', 'pending'), expires_at: 'y' }] };
    await feed.poll();
    expect(heard).toEqual(['approvals']);

    // An execution settled: its known outcome appears among the decided approvals.
    answers['all'] = { approvals: [approval('apr_0', 'granted', { state: 'completed', target_status: 201 })] };
    answers['vault'] = { status: 'locked', version: 1 };
    await feed.poll();
    expect(heard).toEqual(['approvals', 'approvals', 'vault']);
    stop();
    expect(feed.listening).toBe(false);
  });

  it('tells a listener who joins between passes of every topic once, and only of changes after that', async () => {
    let pending: unknown[] = [];
    const feed = new LiveFeed(
      async (_service, path) => ({ status: 200, body: { approvals: path.includes('pending') ? pending : [] } }),
      60_000,
      () => undefined,
    );
    const first: LiveTopic[] = [];
    const second: LiveTopic[] = [];
    const stopFirst = feed.listen((topic) => first.push(topic));
    await feed.poll();
    first.length = 0;
    // A second tab opens; an approval arrives before the next pass (the tab may have loaded the list before it).
    const stopSecond = feed.listen((topic) => second.push(topic));
    pending = [approval('apr_9', 'pending')];
    await feed.poll();
    expect(first).toEqual(['approvals']);
    expect(second).toEqual(['approvals', 'reviews', 'vault']);
    await feed.poll();
    expect(second).toEqual(['approvals', 'reviews', 'vault']);
    stopFirst();
    stopSecond();
    expect(feed.listening).toBe(false);
  });

  it('says signed_out when the key stops working, and keeps going when a service is down', async () => {
    const errors: string[] = [];
    let status = 200;
    const feed = new LiveFeed(
      async (service) => {
        if (service === 'reconciler') throw new Error('ECONNREFUSED');
        return { status, body: {} };
      },
      60_000,
      (service) => errors.push(service),
    );
    const heard: LiveTopic[] = [];
    const stop = feed.listen((topic) => heard.push(topic));
    await feed.poll();
    expect(errors).toEqual(['reconciler']);
    status = 401;
    await feed.poll();
    expect(heard).toEqual(['approvals', 'reviews', 'vault', 'signed_out']);
    stop();
  });
});
