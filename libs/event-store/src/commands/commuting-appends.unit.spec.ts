import type { Event, EventEnvelope } from '@onceport/contracts';
import { WrongExpectedVersionError } from '../errors';
import { CommutingAppends, type CommutingStreamAccess } from './commuting-appends';
import type { LoadedStream } from './stream-kind';

type Loaded = LoadedStream<number, Event>;
const event = (name: string) => ({ type: name }) as unknown as EventEnvelope<Event>;

/** A stream held in memory: its state is how many events it has; `appendAtEnd` can be made to lose races. */
function memoryStream(conflicts: number) {
  const stored: EventEnvelope<Event>[] = [];
  let loads = 0;
  let conflictsLeft = conflicts;
  const access: CommutingStreamAccess<number, Event> = {
    load: async () => {
      loads += 1;
      return { state: stored.length, version: stored.length, events: [...stored] };
    },
    evolve: (state) => state + 1,
    appendAtEnd: async (events) => {
      if (conflictsLeft > 0) {
        conflictsLeft -= 1;
        // another writer took the next version meanwhile
        stored.push(event('DispatchStarted'));
        throw new WrongExpectedVersionError('execution-x', stored.length - 1, 'another writer appended first');
      }
      stored.push(...events);
      return stored.length;
    },
    now: () => new Date(0),
  };
  return { access, stored, loads: () => loads };
}

/** Queues one attach; `refuse` makes its decider refuse it. */
function enqueue(appends: CommutingAppends, access: CommutingStreamAccess<number, Event>, refuse = false) {
  return new Promise<Loaded & { appended: readonly EventEnvelope<Event>[] }>((resolve, reject) =>
    appends.enqueue('execution-x', access, {
      decide: async () => {
        if (refuse) throw new Error('not attachable');
        return [event('RetryAttached')];
      },
      resolve,
      reject,
    }),
  );
}

describe('commuting appends', () => {
  it('loads and decides the whole batch again when another writer took the next version first, and answers each caller once', async () => {
    const stream = memoryStream(2);
    const appends = new CommutingAppends();
    const handled = await Promise.all([enqueue(appends, stream.access), enqueue(appends, stream.access)]);
    // two lost races (each left another writer's event), then the batch committed on top of them
    expect(stream.stored.map((e) => e.type)).toEqual(['DispatchStarted', 'DispatchStarted', 'RetryAttached', 'RetryAttached']);
    expect(handled.map((h) => h.appended.length)).toEqual([1, 1]);
    expect(handled.map((h) => h.version)).toEqual([3, 4]);
    expect(stream.loads()).toBeGreaterThanOrEqual(3);
  });

  it('rejects only the command its decider refused; the others commit', async () => {
    const stream = memoryStream(1);
    const appends = new CommutingAppends();
    const [ok, refused] = await Promise.allSettled([enqueue(appends, stream.access), enqueue(appends, stream.access, true)]);
    expect(ok.status).toBe('fulfilled');
    expect(refused).toMatchObject({ status: 'rejected', reason: new Error('not attachable') });
    expect(stream.stored.filter((e) => e.type === 'RetryAttached')).toHaveLength(1);
  });

  it('fails every caller of the batch with an error that is not a lost race', async () => {
    const stream = memoryStream(0);
    stream.access.appendAtEnd = async () => {
      throw new Error('connection terminated');
    };
    const appends = new CommutingAppends();
    const results = await Promise.allSettled([enqueue(appends, stream.access), enqueue(appends, stream.access)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
