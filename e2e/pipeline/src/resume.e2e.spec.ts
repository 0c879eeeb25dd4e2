import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Answer, KEYS, until, type TwoIntakes, startTwoIntakes } from './pipeline-harness';

/**
 * Resumable streams across replicas (DESIGN.md §8: "answering agents with resumable SSE streams,
 * Last-Event-ID"): a tool call whose connection drops on one intake replica is picked up on another
 * replica with `GET /mcp` + `Last-Event-ID`, and the answer that arrives there is the result of the
 * one execution the call started.
 */
describe('MCP resumable streams across two intake replicas (JetStream, PostgreSQL)', () => {
  let stack: TwoIntakes;
  let db: TwoIntakes['db'];
  let target: TwoIntakes['target'];
  let intake1: TwoIntakes['intake1'];
  let intake2: TwoIntakes['intake2'];

  beforeAll(async () => {
    stack = await startTwoIntakes();
    ({ db, target, intake1, intake2 } = stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const deployments = (project: string): number =>
    target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === project).length;

  async function openSession(url: string, key: string): Promise<{ client: Client; sessionId: string }> {
    const client = new Client({ name: 'resume-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    if (!transport.sessionId) throw new Error('intake gave no session id');
    return { client, sessionId: transport.sessionId };
  }

  function resume(url: string, key: string, sessionId: string, lastEventId: string, signal: AbortSignal): Promise<Response> {
    return fetch(`${url}/mcp`, {
      method: 'GET',
      signal,
      headers: {
        authorization: `Bearer ${key}`,
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': lastEventId,
      },
    });
  }

  it('a call dropped on intake #1 after the priming event is answered on intake #2 after Last-Event-ID: the completed result of the one execution', async () => {
    const { client, sessionId } = await openSession(intake1.url, KEYS.a);
    target.setBehavior({ route: 'deployments', delay_ms: 2000, times: 1 });

    // The call, on intake #1, read up to its priming event, then the connection drops.
    const dropped = new AbortController();
    const primed = await fetch(`${intake1.url}/mcp`, {
      method: 'POST',
      signal: dropped.signal,
      headers: {
        authorization: `Bearer ${KEYS.a}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 41,
        method: 'tools/call',
        params: { name: 'create_deployment', arguments: { project: 'resume', environment: 'staging', version: '2.0.0' } },
      }),
    })
      .then((post) => {
        expect(post.status).toBe(200);
        expect(post.headers.get('content-type')).toContain('text/event-stream');
        return readSse(post, (event) => event.id !== null, 10_000);
      })
      .finally(() => dropped.abort());
    const primingId = primed.at(-1)?.id;
    expect(primingId).toEqual(expect.any(String));
    expect(primed.some((event) => rpcResponseOf(event, 41) !== null)).toBe(false); // dropped before the answer

    // The same session resumes on intake #2.
    const resumed = new AbortController();
    const events = await resume(intake2.url, KEYS.a, sessionId, primingId ?? '', resumed.signal)
      .then((get) => {
        expect(get.status).toBe(200);
        expect(get.headers.get('content-type')).toContain('text/event-stream');
        return readSse(get, (event) => rpcResponseOf(event, 41) !== null, 30_000, { untilEnd: true });
      })
      .finally(() => resumed.abort());
    const response = events.map((event) => rpcResponseOf(event, 41)).find((r) => r !== null);
    const answer = (response?.result as { structuredContent?: Answer } | undefined)?.structuredContent;
    expect(answer).toMatchObject({ state: 'completed', replay: false, attached: false, target_status: 201 });
    expect(answer?.execution_id).toMatch(/^exe_/);
    // The same execution the dropped call started: its id is the key the target saw, once.
    expect(answer?.result?.body).toMatchObject({ params: { project: 'resume' }, idempotency_key: answer?.execution_id });
    expect(deployments('resume')).toBe(1);
    const accepted = await db.pool.query(
      "SELECT count(*)::int AS n FROM onceport.events WHERE event_type = 'ExecutionAccepted' AND data->'arguments'->>'project' = 'resume'",
    );
    expect(accepted.rows[0]?.n).toBe(1);
    // Every event after the priming one carries an id (a client can resume again from any of them).
    expect(events.filter((event) => event.data !== '').every((event) => event.id !== null)).toBe(true);

    // Written on intake #2 means delivered: the execution records it.
    const delivered = await until(
      () =>
        db.pool.query("SELECT data FROM onceport.events WHERE stream_id = $1 AND event_type = 'ResultDelivered'", [
          `execution-${answer?.execution_id}`,
        ]),
      (result) => result.rows.length > 0,
      10_000,
    );
    expect(delivered.rows[0]?.data).toMatchObject({ transport: 'mcp', replay: false, correlation: { jsonRpcId: 41, sessionId } });

    // Resuming again (on either replica) hands over the same stored answer, and nothing runs twice.
    const again = new AbortController();
    const replayed = await resume(intake1.url, KEYS.a, sessionId, primingId ?? '', again.signal)
      .then((second) => readSse(second, (event) => rpcResponseOf(event, 41) !== null, 10_000, { untilEnd: true }))
      .finally(() => again.abort());
    expect(replayed.map((event) => rpcResponseOf(event, 41)).find((r) => r !== null)).toEqual(response);
    expect(deployments('resume')).toBe(1);
    await client.close();
  });

  it("another actor's key with the session id gets 401 on either replica; an unknown event id is refused", async () => {
    const { client, sessionId } = await openSession(intake1.url, KEYS.a);
    const ping = await fetch(`${intake1.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEYS.a}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    const events = await readSse(ping, (event) => rpcResponseOf(event, 7) !== null, 10_000, { untilEnd: true });
    const firstId = events.find((event) => event.id !== null)?.id ?? '';
    expect(firstId).not.toBe('');

    for (const url of [intake1.url, intake2.url]) {
      const other = await resume(url, KEYS.b, sessionId, firstId, AbortSignal.timeout(10_000));
      expect(other.status).toBe(401);
      expect(((await other.json()) as { error: { code: number } }).error.code).toBe(-32001);
    }
    const unknown = await resume(intake2.url, KEYS.a, sessionId, '999999999', AbortSignal.timeout(10_000));
    expect(unknown.status).toBe(400);
    await unknown.body?.cancel();
    await client.close();
  });
});

interface SseEvent {
  readonly id: string | null;
  readonly event: string | null;
  readonly data: string;
}

/**
 * Reads SSE events until `stop` says so (or, with `untilEnd`, until the server ends the stream
 * after that), failing after `timeoutMs`. Comments (keep-alives) are skipped.
 */
async function readSse(
  response: Response,
  stop: (event: SseEvent) => boolean,
  timeoutMs: number,
  options: { untilEnd?: boolean } = {},
): Promise<SseEvent[]> {
  if (!response.body) throw new Error('no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  let stopped = false;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no ${stopped ? 'end of stream' : 'awaited event'} within ${timeoutMs} ms; got ${JSON.stringify(events)}`)),
        Math.max(0, left),
      );
    });
    const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
    if (chunk.done) {
      if (!stopped) throw new Error(`stream ended before the awaited event; got ${JSON.stringify(events)}`);
      return events;
    }
    buffer += decoder.decode(chunk.value, { stream: true });
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const raw = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event = parseSseEvent(raw);
      if (!event) continue;
      events.push(event);
      if (stop(event)) stopped = true;
    }
    if (stopped && !options.untilEnd) {
      reader.releaseLock();
      return events;
    }
  }
}

function parseSseEvent(raw: string): SseEvent | null {
  let id: string | null = null;
  let event: string | null = null;
  const data: string[] = [];
  let fields = 0;
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields += 1;
    if (name === 'id') id = value;
    else if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
  }
  return fields === 0 ? null : { id, event, data: data.join('\n') };
}

function rpcResponseOf(event: SseEvent, id: number): { result?: unknown; error?: unknown } | null {
  if (event.data === '') return null;
  const message = JSON.parse(event.data) as { id?: unknown; result?: unknown; error?: unknown };
  return message.id === id && ('result' in message || 'error' in message) ? message : null;
}
