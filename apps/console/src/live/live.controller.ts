import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { SERVICE_LOG, type ServiceLog } from '@onceport/service-kit';
import { CONSOLE_ENV, type ConsoleEnv } from '../console-env';
import { ConsoleGate } from '../api/console-gate';
import { UpstreamClient } from '../upstream/upstream-client';
import { LiveFeed, type LiveTopic } from './live-feed';

const KEEP_ALIVE_MS = 15_000;
const MAX_STREAMS_PER_SESSION = 8;

/**
 * Server-Sent Events: the page hears `approvals`, `reviews`, `vault` (something changed: reload it)
 * and `signed_out` without reloading. One feed per signed-in session, shared by its tabs.
 */
@Controller('api/events')
export class LiveController implements OnModuleDestroy {
  private readonly feeds = new Map<string, { feed: LiveFeed; streams: number }>();

  constructor(
    @Inject(ConsoleGate) private readonly gate: ConsoleGate,
    @Inject(UpstreamClient) private readonly upstream: UpstreamClient,
    @Inject(CONSOLE_ENV) private readonly env: ConsoleEnv,
    @Inject(SERVICE_LOG) private readonly log: ServiceLog,
  ) {}

  @Get()
  stream(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    const session = this.gate.session(req, res);
    if (!session) return;
    const entry = this.feeds.get(session.id) ?? { feed: this.feedFor(session.credential), streams: 0 };
    if (entry.streams >= MAX_STREAMS_PER_SESSION) {
      res.writeHead(429, { 'content-type': 'text/plain' }).end('too many live streams for this session');
      return;
    }
    entry.streams += 1;
    this.feeds.set(session.id, entry);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    const send = (topic: LiveTopic): void => void res.write(`event: ${topic}\ndata: {}\n\n`);
    const unlisten = entry.feed.listen(send);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    req.on('close', () => {
      clearInterval(keepAlive);
      unlisten();
      entry.streams -= 1;
      if (entry.streams === 0) this.feeds.delete(session.id);
    });
  }

  onModuleDestroy(): void {
    for (const { feed } of this.feeds.values()) feed.stop();
  }

  private feedFor(credential: string): LiveFeed {
    return new LiveFeed(
      (service, path) => this.upstream.call(service, 'GET', path, credential),
      this.env.ONCEPORT_CONSOLE_POLL_MS,
      (service, error) => this.log('warn', 'live feed: a service did not answer', { service, error: String(error).slice(0, 300) }),
    );
  }
}
