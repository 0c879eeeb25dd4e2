import { ChannelListener, Wakeup } from '@onceport/event-store';
import type { Pool } from 'pg';

/** The channel a stored MCP stream event is announced on (in the insert's statement); the payload is its session id. */
export const MCP_STREAM_CHANNEL = 'onceport_mcp_stream';

/** One resumed stream's view of its session's notices: `wait(ms)` resolves at the next one (even one that came before the call) or after `ms`. */
export interface StreamWatch {
  wait(ms: number): Promise<void>;
  close(): void;
}

/**
 * Resumed MCP streams waiting for their session's next stream event, on one LISTEN connection per
 * process. A watch is woken by a notification for its session, by a lost connection, or at its
 * timeout — the stream then reads the store: a notice only says "look again". A watch is taken
 * before the stream's first read, so a notice between a read and the next wait is not missed.
 */
export class McpStreamNotices {
  private readonly watches = new Map<string, Set<Wakeup>>();
  private readonly listener: ChannelListener;

  constructor(pool: Pool) {
    this.listener = new ChannelListener(
      pool,
      MCP_STREAM_CHANNEL,
      (sessionId) => this.wake(sessionId),
      () => this.wakeAll(),
    );
  }

  /** Starts listening (once per process) and watches `sessionId`. Without a LISTEN connection the watch still times out: the stream polls. */
  async watch(sessionId: string): Promise<StreamWatch> {
    await this.listener.listen().catch(() => this.wakeAll()); // no connection now: waits end at their timeout, the next watch tries again
    const wakeup = new Wakeup();
    const set = this.watches.get(sessionId) ?? new Set<Wakeup>();
    this.watches.set(sessionId, set);
    set.add(wakeup);
    return {
      wait: (ms) => wakeup.wait(ms),
      close: () => {
        set.delete(wakeup);
        if (set.size === 0 && this.watches.get(sessionId) === set) this.watches.delete(sessionId);
        wakeup.wake();
      },
    };
  }

  /** Wakes every watch and drops the connection. */
  close(): void {
    this.wakeAll();
    this.listener.close();
  }

  private wake(sessionId: string): void {
    for (const wakeup of this.watches.get(sessionId) ?? []) wakeup.wake();
  }

  private wakeAll(): void {
    for (const set of this.watches.values()) for (const wakeup of set) wakeup.wake();
  }
}
