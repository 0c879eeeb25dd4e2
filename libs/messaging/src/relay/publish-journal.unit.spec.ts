import { PublishJournal } from './publish-journal';

const at = (n: number) => ({ transactionId: BigInt(n), globalPosition: BigInt(n) });

describe('PublishJournal', () => {
  it('given nothing was lost, when the stream ends at or after the last ack, then there is no rewind', () => {
    const journal = new PublishJournal(60_000);
    journal.record(at(1), 10, 0);
    journal.record(at(2), 20, 1);
    expect(journal.rewindPointFor(20)).toBeNull();
    expect(journal.rewindPointFor(25)).toBeNull();
  });

  it('given the stream lost its tail, then the rewind starts at the oldest batch with a lost message', () => {
    const journal = new PublishJournal(60_000);
    journal.record(at(1), 10, 0);
    journal.record(at(2), 20, 1);
    journal.record(at(3), 30, 2);
    expect(journal.rewindPointFor(15)).toEqual(at(2));
    expect(journal.rewindPointFor(0)).toEqual(at(1));
  });

  it('forgets batches older than its retention but always keeps the newest', () => {
    const journal = new PublishJournal(100);
    journal.record(at(1), 10, 0);
    journal.record(at(2), 20, 50);
    journal.record(at(3), 30, 500);
    expect(journal.size).toBe(1);
    expect(journal.rewindPointFor(0)).toEqual(at(3));
  });
});
