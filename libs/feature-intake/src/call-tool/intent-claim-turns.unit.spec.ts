import { IntentClaimTurns } from './intent-claim-turns';

function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('IntentClaimTurns', () => {
  it('lets calls of one intent decide only after the decision in flight for it has ended', async () => {
    const turns = new IntentClaimTurns();
    const order: string[] = [];
    const first = gate();
    const leader = turns.take('intent-a', async (waited) => {
      order.push(`leader starts${waited ? ' after waiting' : ''}`);
      await first.promise;
      order.push('leader commits');
      return 'claimed';
    });
    const followers = [1, 2, 3].map((n) =>
      turns.take('intent-a', async (waited) => {
        order.push(`follower ${n}${waited ? ' after waiting' : ''}`);
        return 'attached';
      }),
    );
    // Nothing of the followers runs while the leader decides.
    await Promise.resolve();
    expect(order).toEqual(['leader starts']);
    first.open();
    expect(await leader).toBe('claimed');
    expect(await Promise.all(followers)).toEqual(['attached', 'attached', 'attached']);
    expect(order).toEqual([
      'leader starts',
      'leader commits',
      'follower 1 after waiting',
      'follower 2 after waiting',
      'follower 3 after waiting',
    ]);
    expect(turns.inFlight).toBe(0);
  });

  it('never holds back another intent', async () => {
    const turns = new IntentClaimTurns();
    const blocked = gate();
    const a = turns.take('intent-a', () => blocked.promise.then(() => 'a'));
    expect(await turns.take('intent-b', async (waited) => (waited ? 'b after waiting' : 'b'))).toBe('b');
    blocked.open();
    expect(await a).toBe('a');
  });

  it("a failed decision is the leader's own: the followers still decide, and the failure reaches only its caller", async () => {
    const turns = new IntentClaimTurns();
    const leader = turns.take('intent-a', async () => {
      throw new Error('in-flight cap reached');
    });
    const follower = turns.take('intent-a', async () => 'decided');
    await expect(leader).rejects.toThrow('in-flight cap reached');
    expect(await follower).toBe('decided');
    expect(turns.inFlight).toBe(0);
  });
});
