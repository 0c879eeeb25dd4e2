import type { Pool, PoolClient } from 'pg';

/**
 * One pooled connection LISTENing on a PostgreSQL channel. A notification only ever means "look
 * again": when the connection is lost, `onLost` fires so callers look now, and the next `listen()`
 * connects again. Notifications sent while no connection listens are gone, so callers keep a slow
 * poll as well: a lost notice delays, it never loses.
 */
export class ChannelListener {
  private client: PoolClient | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly channel: string,
    private readonly onNotice: (payload: string) => void,
    private readonly onLost: () => void = () => undefined,
  ) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`ChannelListener: "${channel.slice(0, 80)}" is not a plain channel name`);
  }

  get listening(): boolean {
    return this.client !== null;
  }

  /** Connects and LISTENs, unless already listening. */
  async listen(): Promise<void> {
    if (this.client) return;
    const client = await this.pool.connect();
    client.on('notification', (message) => this.onNotice(message.payload ?? ''));
    client.on('error', () => {
      if (this.client === client) this.close();
      this.onLost();
    });
    try {
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    this.client = client;
  }

  /** Drops the connection (a later `listen()` opens a new one). */
  close(): void {
    this.client?.release(true);
    this.client = null;
  }
}
