import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type JSONRPCResponse, type RequestId, isJSONRPCErrorResponse, isJSONRPCResultResponse } from '@modelcontextprotocol/server';
import { jsonRpcError } from './json-rpc-shape';
import type { StreamWatch } from './mcp-stream-notices';
import { type PgMcpEventStore, STANDALONE_STREAM, awaitedRequestsOf, isMessage, isStreamEventId } from './pg-mcp-event-store';

export interface ResumptionTiming {
  /** How often the stream is looked at for events another replica stored, when no notice came first. */
  readonly pollMs: number;
  readonly keepAliveMs: number;
  /** After this long without completing, the stream ends and the client resumes again. */
  readonly followMs: number;
  /**
   * How long an id not (yet) in the store is waited for before it is refused: a request stream's
   * events are sent before their commit, so a client that lost the connection right after one may
   * ask for it first.
   */
  readonly unknownIdGraceMs: number;
}

export interface ResumedStream {
  readonly store: PgMcpEventStore;
  readonly sessionId: string;
  readonly lastEventId: string;
  /** Called once each JSON-RPC response has been written to this connection. */
  readonly onResponseWritten: (response: JSONRPCResponse) => void;
  /** The session's notices, watched since before the first read (see `McpStreamNotices`); absent: a plain poll every `pollMs`. */
  readonly watch?: StreamWatch;
}

/**
 * `GET /mcp` with `Last-Event-ID`, served from PostgreSQL instead of the SDK's transport.
 *
 * The SDK replays what its event store holds at the moment of the GET and then only passes on what
 * *its own transport instance* sends. A call whose connection dropped is still being answered by the
 * transport of the original POST — on another replica, or in another transport on this one — so
 * through the SDK the resumed stream would never see the answer arrive, and would never end. Here the
 * stream is followed in the store until every request it answers has its response, then closed.
 */
export async function resumeStream(res: ServerResponse, resumed: ResumedStream, timing: ResumptionTiming): Promise<void> {
  const { store, lastEventId } = resumed;
  const streamId = await streamOfEvent(resumed, timing);
  if (!streamId) {
    res
      .writeHead(400, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(jsonRpcError(-32000, 'Bad Request: Last-Event-ID is not an event of this session')));
    return;
  }
  const progress = new StreamProgress(streamId);
  const events = await store.eventsAfter(streamId, '0');
  for (const event of events) if (BigInt(event.eventId) <= BigInt(lastEventId)) progress.see(event.message);

  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'mcp-session-id': resumed.sessionId,
  });
  res.flushHeaders();
  let closed = false;
  res.once('close', () => {
    closed = true;
    resumed.watch?.close(); // a client gone mid-wait ends the wait now, not at the next notice
  });
  const keepAlive = setInterval(() => res.write(': keepalive\n\n'), timing.keepAliveMs);
  keepAlive.unref();
  const deadline = Date.now() + timing.followMs;
  let cursor = lastEventId;
  let pending = events.filter((event) => BigInt(event.eventId) > BigInt(lastEventId));
  try {
    for (;;) {
      for (const event of pending) {
        if (isMessage(event.message)) write(res, event.eventId, event.message, resumed.onResponseWritten);
        progress.see(event.message);
        cursor = event.eventId;
      }
      if (progress.complete() || closed || Date.now() >= deadline) return;
      await (resumed.watch ? resumed.watch.wait(Math.min(timing.pollMs, Math.max(0, deadline - Date.now()))) : sleep(timing.pollMs));
      if (closed) return;
      pending = await store.eventsAfter(streamId, cursor);
    }
  } catch {
    // The store failed mid-stream: ending the stream is the protocol's way to say "resume again",
    // and the client still holds the id of the last event it got.
    return;
  } finally {
    clearInterval(keepAlive);
    if (!closed) res.end();
  }
}

/** The stream `lastEventId` belongs to, waiting up to the grace for an event sent before its commit. */
async function streamOfEvent(resumed: ResumedStream, timing: ResumptionTiming): Promise<string | undefined> {
  if (!isStreamEventId(resumed.lastEventId)) return undefined; // never an id: refused at once
  const deadline = Date.now() + timing.unknownIdGraceMs;
  for (;;) {
    const streamId = await resumed.store.getStreamIdForEventId(resumed.lastEventId);
    const left = deadline - Date.now();
    if (streamId || left <= 0) return streamId;
    await (resumed.watch ? resumed.watch.wait(Math.min(timing.pollMs, left)) : sleep(Math.min(timing.pollMs, left)));
  }
}

function write(res: ServerResponse, eventId: string, message: unknown, onResponseWritten: (response: JSONRPCResponse) => void): void {
  const response = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message : null;
  res.write(`event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`, (error) => {
    if (!error && response) onResponseWritten(response);
  });
}

/** Which of the stream's requests have their response: a request stream is complete once all do. */
class StreamProgress {
  private awaited: readonly RequestId[] | null = null;
  private readonly answered = new Set<RequestId>();

  constructor(private readonly streamId: string) {}

  see(message: unknown): void {
    const awaited = awaitedRequestsOf(message);
    if (awaited) this.awaited = awaited;
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) this.answered.add(message.id);
  }

  complete(): boolean {
    if (this.streamId === STANDALONE_STREAM) return false;
    // A stream without a priming event (an older client) can only be resumed from its response.
    if (this.awaited === null) return this.answered.size > 0;
    return this.awaited.every((id) => this.answered.has(id));
  }
}
