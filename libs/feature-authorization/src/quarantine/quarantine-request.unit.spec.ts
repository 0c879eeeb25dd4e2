import { eventIdOf, filterOf, limitOf, subscriberFilterOf, subscriberOf } from './quarantine-request';
import { Problem } from '@onceport/service-kit';

const refusal = (run: () => unknown): { status: number; code: string } | null => {
  try {
    run();
    return null;
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    return { status: error.status, code: error.code };
  }
};

describe('the quarantine API inputs', () => {
  it('defaults the list to open entries and 100 of them; refuses other statuses and limits out of 1-1000', () => {
    expect(filterOf(undefined)).toBe('open');
    expect(filterOf('released')).toBe('released');
    expect(refusal(() => filterOf('everything'))).toEqual({ status: 400, code: 'invalid_status' });
    expect(limitOf(undefined)).toBe(100);
    expect(limitOf('1000')).toBe(1000);
    for (const bad of ['0', '1001', '-1', '1.5', '1e3', ' 5', 'x'.repeat(5000)])
      expect(refusal(() => limitOf(bad))).toEqual({ status: 400, code: 'invalid_limit' });
  });

  it('takes subscriber names as the code makes them, at most 200 characters', () => {
    expect(subscriberOf('projection:execution-matches')).toBe('projection:execution-matches');
    expect(subscriberOf('consumer:authorization')).toBe('consumer:authorization');
    expect(subscriberFilterOf('')).toBeUndefined();
    for (const bad of ['', ':leading', 'with space', 'x'.repeat(201), 'a\u0000b', 'é'])
      expect(refusal(() => subscriberOf(bad))).toEqual({ status: 400, code: 'invalid_subscriber' });
  });

  it('takes event ids as UUIDs only, lower-cased', () => {
    expect(eventIdOf('3F2504E0-4F89-41D3-9A0C-0305E82C3301')).toBe('3f2504e0-4f89-41d3-9a0c-0305e82c3301');
    for (const bad of [
      'not-a-uuid',
      '3f2504e0-4f89-41d3-9a0c-0305e82c33011',
      `${'a'.repeat(8)}-${'a'.repeat(4)}-${'a'.repeat(4)}-${'a'.repeat(4)}-${'g'.repeat(12)}`,
    ]) {
      expect(refusal(() => eventIdOf(bad))).toEqual({ status: 400, code: 'invalid_event_id' });
    }
  });
});
