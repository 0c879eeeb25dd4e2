import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { IntakePruner } from '../housekeeping/intake-pruner';
import { RestAgentProcesses } from '../rest/agent-processes';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { type McpTestServer, serveMcp } from '../testing/mcp-test-server';
import { genericPlansOf, recordStatements } from '@onceport/event-store/testing';
import { McpSessions } from './mcp-sessions';
import { McpStreamNotices } from './mcp-stream-notices';
import { resumeStream } from './mcp-stream-resumption';
import { PgMcpEventStore } from './pg-mcp-event-store';

const KEYS = { 'key-a': 'agent:a' };
const result = (id: number, text: string): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

/** MCP session lifetime at intake's real controller over real PostgreSQL, with the v1 SDK client. */
describe('MCP sessions: end, expiry, resumed streams, pruning (real PostgreSQL, SDK client)', () => {
  let h: IntakeHarness;
  let mcp: McpTestServer;

  beforeAll(async () => {
    h = await startIntakeHarness();
    mcp = await serveMcp(h, KEYS, { resumedStreamsPerActor: 1 });
  });
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });

  async function connect(): Promise<{ client: Client; transport: StreamableHTTPClientTransport; sessionId: string }> {
    const client = new Client({ name: 'session-lifetime-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { Authorization: 'Bearer key-a' } } });
    await client.connect(transport);
    return { client, transport, sessionId: transport.sessionId ?? '' };
  }
  async function toolsListStatus(sessionId: string): Promise<number> {
    const response = await fetch(mcp.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer key-a',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    await response.body?.cancel();
    return response.status;
  }

  it('DELETE ends the session: its id answers 404 afterwards, and its stream events are gone', async () => {
    const { client, transport, sessionId } = await connect();
    await client.listTools();
    expect(await toolsListStatus(sessionId)).toBe(200);
    await transport.terminateSession();
    expect(await toolsListStatus(sessionId)).toBe(404);
    const left = await h.db.pool.query('SELECT count(*)::int AS n FROM onceport.mcp_stream_events WHERE session_id = $1', [sessionId]);
    expect(left.rows[0]).toEqual({ n: 0 });
    await client.close();
  });

  it('a session idle longer than the idle limit answers 404; the client initializes a new one that works', async () => {
    const { client, sessionId } = await connect();
    await client.listTools();
    await h.db.pool.query("UPDATE onceport.mcp_sessions SET last_seen_at = now() - interval '25 hours' WHERE session_id = $1", [sessionId]);
    expect(await toolsListStatus(sessionId)).toBe(404);
    await client.close();
    const fresh = await connect();
    expect(fresh.sessionId).not.toBe(sessionId);
    expect((await fresh.client.listTools()).tools.length).toBeGreaterThan(0);
    await fresh.client.close();
  });

  it('a session in use stays alive: each request counts as use', async () => {
    const { client, sessionId } = await connect();
    await h.db.pool.query("UPDATE onceport.mcp_sessions SET last_seen_at = now() - interval '23 hours' WHERE session_id = $1", [sessionId]);
    expect(await toolsListStatus(sessionId)).toBe(200);
    const seen = await h.db.pool.query<{ recent: boolean }>(
      "SELECT last_seen_at > now() - interval '1 minute' AS recent FROM onceport.mcp_sessions WHERE session_id = $1",
      [sessionId],
    );
    expect(seen.rows[0]?.recent).toBe(true);
    await client.close();
  });

  it('resumed streams per actor are capped: over the cap → 429 with Retry-After; a closed one frees its place', async () => {
    const { client, sessionId } = await connect();
    const store = new PgMcpEventStore(h.db.pool, () => sessionId, [99]);
    const priming = await store.storeEvent('stream-cap', {} as JSONRPCMessage);
    const resume = (signal?: AbortSignal) =>
      fetch(mcp.url, {
        headers: { authorization: 'Bearer key-a', accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': priming },
        ...(signal ? { signal } : {}),
      });
    const first = new AbortController();
    const held = await resume(first.signal);
    expect(held.status).toBe(200);
    const refused = await resume();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/Too many resumed streams/);
    // The held stream ends once its response is stored (woken by the notice), which frees the place.
    await store.storeEvent('stream-cap', result(99, 'done'));
    expect(await held.text()).toContain('"done"');
    let again = await resume();
    for (let tries = 0; again.status === 429 && tries < 200; tries += 1) {
      await again.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 25)); // the server's finally runs right after the stream ended
      again = await resume();
    }
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('"done"');
    await client.close();
  });

  it('a resumed stream wakes on the notice of a new stream event, not on its poll', async () => {
    const notices = new McpStreamNotices(h.db.pool);
    const server: Server = createServer((req, res) => {
      const sessionId = String(req.headers['mcp-session-id']);
      void notices.watch(sessionId).then((watch) =>
        resumeStream(
          res,
          {
            store: new PgMcpEventStore(h.db.pool, () => sessionId),
            sessionId,
            lastEventId: String(req.headers['last-event-id']),
            onResponseWritten: () => undefined,
            watch,
          },
          { pollMs: 120_000, keepAliveMs: 60_000, followMs: 120_000, unknownIdGraceMs: 0 },
        ).finally(() => watch.close()),
      );
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const store = new PgMcpEventStore(h.db.pool, () => 's-notice', [5]);
      const priming = await store.storeEvent('stream-notice', {} as JSONRPCMessage);
      const started = Date.now();
      const response = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
        headers: { 'mcp-session-id': 's-notice', 'last-event-id': priming },
        signal: AbortSignal.timeout(60_000),
      });
      const opened = await response;
      await store.storeEvent('stream-notice', result(5, 'woken'));
      expect(await opened.text()).toContain('"woken"');
      expect(Date.now() - started).toBeLessThan(15_000); // the poll would have taken 120 s
    } finally {
      server.closeAllConnections();
      server.close();
      notices.close();
    }
  });

  it('lookups that arrive at once share a statement: each caller hears its own session, an ended, expired or unknown one reads as unknown, a stale live one is touched', async () => {
    const db = h.db.pool;
    await db.query(
      `INSERT INTO onceport.mcp_sessions (session_id, actor, last_seen_at, ended_at) VALUES
         ('look-live-a', 'agent:a', now(), NULL), ('look-live-b', 'agent:b', now() - interval '2 hours', NULL),
         ('look-ended', 'agent:a', now(), now()), ('look-expired', 'agent:a', now() - interval '2 days', NULL)`,
    );
    const { pool, statements } = recordStatements(db);
    const sessions = new McpSessions(h.deps.em, pool, 24 * 60 * 60_000);
    const asked = ['look-live-a', 'look-live-b', 'look-ended', 'look-live-a', 'look-expired', 'look-never', 'look-live-b'];

    expect(await Promise.all(asked.map((sessionId) => sessions.actorOf(sessionId)))).toEqual([
      'agent:a',
      'agent:b',
      null,
      'agent:a',
      null,
      null,
      'agent:b',
    ]);
    expect(statements).toHaveLength(2); // the first alone, the six that arrived while it ran together
    const touched = await db.query(
      "SELECT last_seen_at > now() - interval '1 minute' AS recent FROM onceport.mcp_sessions WHERE session_id = 'look-live-b'",
    );
    expect(touched.rows[0]?.recent).toBe(true);
  });

  it('the lookup walks the sessions’ key under a generic plan, never the whole table', async () => {
    const plans = await genericPlansOf(h.db.pool, (probe) => new McpSessions(h.deps.em, probe, 24 * 60 * 60_000).actorOf('plan-probe'));

    expect(plans).toHaveLength(1);
    expect(plans[0]).toContain('mcp_sessions_pkey');
    expect(plans[0]).not.toContain('Seq Scan');
  });

  it('the pruner deletes ended and expired sessions with their stream events and unused old agent process ids, in batches, safely from two replicas at once', async () => {
    const db = h.db.pool;
    await db.query('DELETE FROM onceport.mcp_sessions');
    await db.query('DELETE FROM onceport.mcp_stream_events');
    await db.query(
      `INSERT INTO onceport.mcp_sessions (session_id, actor, last_seen_at, ended_at) SELECT 'ended-' || i, 'agent:a', now(), now() FROM generate_series(1, 30) i;
       INSERT INTO onceport.mcp_sessions (session_id, actor, last_seen_at) SELECT 'expired-' || i, 'agent:a', now() - interval '2 days' FROM generate_series(1, 30) i;
       INSERT INTO onceport.mcp_sessions (session_id, actor) VALUES ('live', 'agent:a');
       INSERT INTO onceport.mcp_stream_events (stream_id, session_id, message, created_at)
         SELECT 's', s.session_id, '{}', now() - interval '1 hour' FROM onceport.mcp_sessions s, generate_series(1, 3);`,
    );
    const processes = new RestAgentProcesses(h.deps.em);
    const unused = await processes.issue('agent:a');
    const used = await processes.issue('agent:a');
    const fresh = await processes.issue('agent:a');
    expect(await new RestAgentProcesses(h.deps.em).ownerOf(used.agentProcess)).toBe('agent:a');
    await db.query("UPDATE onceport.rest_agent_processes SET issued_at = now() - interval '2 days' WHERE agent_process = ANY($1)", [
      [unused.agentProcess, used.agentProcess],
    ]);

    const settings = { sessionIdleMs: 86_400_000, unusedAgentProcessMs: 86_400_000, batchSize: 7 };
    const [one, two] = await Promise.all([
      new IntakePruner(h.deps.em, settings).pruneOnce(),
      new IntakePruner(h.deps.em, settings).pruneOnce(),
    ]);
    expect((one?.sessions ?? 0) + (two?.sessions ?? 0)).toBe(60);
    expect((one?.agentProcesses ?? 0) + (two?.agentProcesses ?? 0)).toBe(1);
    const sessions = await db.query<{ session_id: string }>('SELECT session_id FROM onceport.mcp_sessions');
    expect(sessions.rows.map((r) => r.session_id)).toEqual(['live']);
    // Stream events of gone sessions go with a run after their session (the same run, or the next).
    await new IntakePruner(h.deps.em, settings).pruneOnce();
    const events = await db.query<{ session_id: string }>('SELECT DISTINCT session_id FROM onceport.mcp_stream_events');
    expect(events.rows.map((r) => r.session_id)).toEqual(['live']);
    const left = await db.query<{ agent_process: string }>(
      'SELECT agent_process FROM onceport.rest_agent_processes ORDER BY agent_process',
    );
    expect(left.rows.map((r) => r.agent_process).sort()).toEqual([used.agentProcess, fresh.agentProcess].sort());
    expect(await new RestAgentProcesses(h.deps.em).ownerOf(unused.agentProcess)).toBeNull();
    expect(await new IntakePruner(h.deps.em, settings).pruneOnce()).toEqual({ sessions: 0, streamEvents: 0, agentProcesses: 0 });
  });
});
