// Recorded execution histories (libs/contracts/test/fixtures/histories) are what services' contract
// tests replay; every one of them must keep parsing with the current contracts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEvent } from './execution-event-registry';

const DIR = join(__dirname, '../../test/fixtures/histories');
const files = readdirSync(DIR).filter((file) => file.endsWith('.json'));

describe('recorded histories', () => {
  it('are all there', () => {
    expect(files.sort()).toEqual(
      expect.arrayContaining([
        'awaiting-approval.json',
        'completed-undelivered-retry.json',
        'denied-retry.json',
        'happy-path.json',
        'unknown-outcome-settled.json',
      ]),
    );
  });

  it.each(files)('%s parses as one execution stream', (file) => {
    const raw: unknown = JSON.parse(readFileSync(join(DIR, file), 'utf8'));
    expect(Array.isArray(raw)).toBe(true);
    const events = (raw as unknown[]).map((event) => parseEvent(event));
    expect(events[0]?.type).toBe('ExecutionAccepted');
    const executionId = events[0]?.data.executionId;
    for (const event of events) {
      expect(event.data.executionId).toBe(executionId);
      expect(event.metadata.correlationId).toBe(executionId);
    }
    expect(new Set(events.map((event) => event.metadata.eventId)).size).toBe(events.length);
    const times = events.map((event) => Date.parse(event.metadata.occurredAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});
