import type { Pool, PoolClient } from 'pg';

/**
 * One pooled connection LISTENing on a PostgreSQL channel. A notification only ever means "look
 * again": when the connection is lost, `onLost` fires so callers look now, and the next `listen()`
 * connects again. Notifications sent while no connection listens are gone, so callers keep a slow
 * poll as well: a lost notice delays, it never loses.
 */
export class ChannelListener {
  private client: PoolClient | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  /**
   * `heartbeatMs`: a listener that only listens sends nothing, so a connection a firewall dropped
   * silently would never report it; a `SELECT 1` this often finds out (and `onLost` fires).
   */
  constructor(
    private readonly pool: Pool,
    private readonly channel: string,
    private readonly onNotice: (payload: string) => void,
    private readonly onLost: () => void = () => undefined,
    private readonly heartbeatMs = 0,
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
    const lost = (): void => {
      if (this.client === client) this.close();
      this.onLost();
    };
    client.on('error', lost);
    try {
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    this.client = client;
    if (this.heartbeatMs > 0) {
      this.heartbeat = setInterval(
        () =>
          void client.query('SELECT 1').catch(() => {
            if (this.client === client) lost();
          }),
        this.heartbeatMs,
      );
      this.heartbeat.unref();
    }
  }

  /** Drops the connection (a later `listen()` opens a new one). */
  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.client?.release(true);
    this.client = null;
  }
}
