import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { z } from 'zod';
import { ClientAbortedFilter, type InfoLog, defaultInfoLog } from './client-aborted';

const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/**
 * The HTTP server's limits, for every service and the embedded start alike. A client that trickles
 * its headers (or its body) is cut once the timeout passes; idle keep-alive sockets are closed; past
 * the connection cap new sockets are closed at once, so held sockets cannot exhaust the process.
 */
export const serverLimitsEnvShape = {
  /** The whole request head must arrive within this (slow-header clients are cut). */
  ONCEPORT_HTTP_HEADERS_TIMEOUT_MS: ms(1_000, 600_000, 10_000),
  /** The whole request (head and body) must arrive within this; a streaming response is not limited by it. */
  ONCEPORT_HTTP_REQUEST_TIMEOUT_MS: ms(1_000, 3_600_000, 30_000),
  /** An idle keep-alive socket is closed after this (keep it below a load balancer's own idle timeout's complement). */
  ONCEPORT_HTTP_KEEP_ALIVE_TIMEOUT_MS: ms(100, 600_000, 5_000),
  ONCEPORT_HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1_024),
};
export type ServerLimitsEnv = z.output<z.ZodObject<typeof serverLimitsEnvShape>>;

/** How often Node looks for requests past their timeout (its default is 30 s, longer than the timeouts themselves). */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * Applies the limits to a Nest app's HTTP server, drops `X-Powered-By`, and makes a client abort
 * one info line. Call it after `NestFactory.create` and before `listen`: Node reads the check
 * interval when the server starts listening.
 */
export function hardenHttpServer(app: INestApplication, limits: ServerLimitsEnv, log: InfoLog = defaultInfoLog): void {
  const instance = app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void };
  instance.disable?.('x-powered-by');
  app.useGlobalFilters(new ClientAbortedFilter(app.getHttpAdapter(), log));
  applyServerLimits(app.getHttpServer() as Server, limits);
}

/** The limits on a plain `node:http` server (what {@link hardenHttpServer} does under Nest). */
export function applyServerLimits(server: Server, limits: ServerLimitsEnv): void {
  // Node refuses a headers timeout longer than the request timeout at construction; here they are set later, so keep that order.
  server.requestTimeout = limits.ONCEPORT_HTTP_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(limits.ONCEPORT_HTTP_HEADERS_TIMEOUT_MS, limits.ONCEPORT_HTTP_REQUEST_TIMEOUT_MS);
  server.keepAliveTimeout = limits.ONCEPORT_HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = limits.ONCEPORT_HTTP_MAX_CONNECTIONS;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    TIMEOUT_CHECK_MS,
    server.headersTimeout,
  );
  endStragglersAfterClose(server);
}

/**
 * A closing server stops Node's timeout checks, so a client trickling its headers would hold a
 * graceful stop open until the process is killed. Once `close()` is called, whatever connection is
 * still open after the request timeout (no request may take longer to arrive) is ended.
 */
function endStragglersAfterClose(server: Server): void {
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void): Server => {
    const timer = setTimeout(() => server.closeAllConnections(), server.requestTimeout);
    timer.unref();
    server.once('close', () => clearTimeout(timer));
    return close(callback);
  };
}
