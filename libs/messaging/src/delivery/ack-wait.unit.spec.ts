import { z } from 'zod';
import { ackWaitEnvShape, ackWaitOf, effectiveAckWaitMs } from './ack-wait';

/** As bootstrapService does: the environment validated with the shape the runtime's includes, then read. */
const settingsFrom = (env: Record<string, string>) => ackWaitOf(z.object(ackWaitEnvShape).parse(env));

describe('ack wait settings', () => {
  it('a consumer keeps its own ack wait; one without gets the configured default; none configured leaves the library default', () => {
    expect(effectiveAckWaitMs(120_000, { defaultMs: 2_000 })).toBe(120_000);
    expect(effectiveAckWaitMs(undefined, { defaultMs: 2_000 })).toBe(2_000);
    expect(effectiveAckWaitMs(undefined, {})).toBeUndefined();
  });

  it('the ceiling caps every consumer, own ack waits included', () => {
    expect(effectiveAckWaitMs(120_000, { defaultMs: 5_000, maxMs: 2_000 })).toBe(2_000);
    expect(effectiveAckWaitMs(undefined, { maxMs: 2_000 })).toBe(2_000);
    expect(effectiveAckWaitMs(1_000, { maxMs: 2_000 })).toBe(1_000);
  });

  it('reads ONCEPORT_ACK_WAIT_MS / ONCEPORT_ACK_WAIT_MAX_MS, and rejects nonsense', () => {
    expect(settingsFrom({ ONCEPORT_ACK_WAIT_MS: '2000' })).toEqual({ defaultMs: 2_000 });
    expect(settingsFrom({ ONCEPORT_ACK_WAIT_MAX_MS: '3000' })).toEqual({ maxMs: 3_000 });
    expect(settingsFrom({})).toEqual({});
    expect(() => settingsFrom({ ONCEPORT_ACK_WAIT_MS: 'soon' })).toThrow(/ONCEPORT_ACK_WAIT_MS/);
  });
});
