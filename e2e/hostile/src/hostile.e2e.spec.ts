import { connect } from 'node:net';
import fc from 'fast-check';
import { HOSTILE_KEYS } from './hostile-actors';
import { HOSTILE_CORPUS, type HostileInput } from './hostile-corpus';
import { type Delivery, type HostileGateway, type Reply, startHostileGateway } from './hostile-gateway';

/** Text that must never reach a client: PostgreSQL's, zod's and Node's insides. */
const LEAK =
  /violates|constraint|jsonb|unsupported Unicode|invalid input syntax|index row|ZodError|"code":\s*"invalid_type"|Maximum call stack|\bat \S+ \(|node_modules/i;
/** JSON-RPC codes that say "the client's fault" (-32000/-32001: the SDK's and intake's transport refusals). */
const CLIENT_CODES = new Set([-32700, -32600, -32601, -32602, -32000, -32001]);

function errorCodes(reply: Reply): number[] {
  return reply.messages.flatMap((m) =>
    typeof m['error'] === 'object' && m['error'] !== null ? [Number((m['error'] as { code: unknown }).code)] : [],
  );
}

/** The one verdict for every hostile answer: a client error, no server error, nothing internal in it. */
function expectClientError(reply: Reply, transport: 'mcp' | 'rest'): void {
  const summary = { status: reply.status, codes: errorCodes(reply), leaked: LEAK.exec(reply.text)?.[0] ?? null };
  expect(summary.status).toBeLessThan(500);
  expect(summary.leaked).toBeNull();
  if (transport === 'rest') {
    expect(summary.status).toBeGreaterThanOrEqual(400);
    return;
  }
  expect(summary.codes.length).toBeGreaterThan(0);
  expect(summary.codes.filter((code) => !CLIENT_CODES.has(code))).toEqual([]);
}

function send(gateway: HostileGateway, input: HostileInput): Promise<Reply> {
  if (input.transport === 'mcp') return gateway.mcp(input.body, input.headers ?? {}, { session: !input.noSession });
  const method = input.method ?? 'POST';
  return gateway.rest(method, input.path ?? '/v1/executions', method === 'GET' ? undefined : input.body, input.headers ?? {});
}

async function until<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Left out of "records nothing" only for a request on the suite's MCP session (opened before the
 * corpus): every answer the session streams, a refusal included, is kept as a stream event so a
 * dropped SSE stream can be resumed with Last-Event-ID. Those rows belong to the session and go
 * with it; REST and session-less requests must leave this table unchanged too.
 */
const SESSION_STREAM = ['mcp_stream_events'];

/** The tables of the `onceport` schema whose row count differs, each as `[before, after]`; `{}` when nothing was recorded. */
function changedTables(
  before: Record<string, number>,
  after: Record<string, number>,
  legitimately: readonly string[] = [],
): Record<string, [number?, number?]> {
  const tables = new Set([...Object.keys(before), ...Object.keys(after)]);
  return Object.fromEntries(
    [...tables].filter((t) => !legitimately.includes(t) && before[t] !== after[t]).map((t) => [t, [before[t], after[t]]]),
  );
}

/** Sends a request head and half its body, then goes away: a client abort mid-body. */
async function abortMidBody(baseUrl: string, path: string, key: string): Promise<void> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}`, `Authorization: Bearer ${key}`, 'Content-Type: application/json'];
  await new Promise((resolve) => socket.write(`${head.join('\r\n')}\r\nContent-Length: 1000\r\n\r\n{"tool":"create_`, resolve));
  socket.destroy();
}

/** The JSON log lines of a process' output from `offset` on. */
function logLinesFrom(output: string, offset: number): Record<string, unknown>[] {
  return output
    .slice(offset)
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
}

const DELIVERIES: readonly Delivery[] = ['jetstream', 'in_process', 'embedded'];

/**
 * Hostile input against the real gateway — the four services as processes over JetStream, the same
 * with in-process delivery, and the one-process `npm start` — every input of the corpus and of the
 * fuzz is a client error that records nothing; server-side failures answer generically; and afterwards the gateway
 * still works for everybody — a call whose answer the target drops is settled, approvals list.
 */
describe.each(DELIVERIES)('hostile input (%s)', (delivery) => {
  let gateway: HostileGateway;

  beforeAll(async () => {
    gateway = await startHostileGateway(delivery);
  }, 180_000);
  afterAll(() => gateway?.stop());

  it(`refuses each of the ${HOSTILE_CORPUS.length} hostile inputs as a client error and records nothing`, async () => {
    expect(HOSTILE_CORPUS.length).toBeGreaterThanOrEqual(40);
    const before = await gateway.rowCounts();
    const failures: string[] = [];
    for (const input of HOSTILE_CORPUS) {
      const prior = await gateway.rowCounts();
      const reply = await send(gateway, input);
      if (process.env['HOSTILE_VERBOSE'])
        process.stdout.write(
          `${input.transport} ${input.name}: ${reply.status} ${errorCodes(reply).join(',')} ${reply.text.slice(0, 160).replace(/\s+/g, ' ')}\n`,
        );
      try {
        expectClientError(reply, input.transport);
        const onSession = input.transport === 'mcp' && !input.noSession;
        expect(changedTables(prior, await gateway.rowCounts(), onSession ? SESSION_STREAM : [])).toEqual({});
      } catch (error) {
        failures.push(
          `${input.transport} ${input.name}: HTTP ${reply.status} ${reply.text.slice(0, 300)}\n  ${(error as Error).message.split('\n').slice(0, 12).join('\n  ')}`,
        );
      }
    }
    expect(failures).toEqual([]);
    expect(changedTables(before, await gateway.rowCounts(), SESSION_STREAM)).toEqual({});
  });

  it('names the path and the bound of each violation (MCP -32602 data.violations, REST 422 errors[])', async () => {
    const mcp = await gateway.mcp(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'scope',
        method: 'tools/call',
        params: { name: 'create_deployment', arguments: {}, _meta: { 'onceport/intent_scope': 's'.repeat(5000) } },
      }),
    );
    expect(mcp.messages[0]).toMatchObject({
      id: 'scope',
      error: {
        code: -32602,
        data: { violations: [{ path: '$.params._meta["onceport/intent_scope"]', bound: 'string of 1-200 characters' }] },
      },
    });
    const rest = await gateway.rest('POST', '/v1/executions', JSON.stringify({ tool: 'create_deployment', arguments: [1] }));
    expect(rest.status).toBe(422);
    expect(rest.messages[0]).toMatchObject({
      type: 'https://onceport.dev/problems/invalid-request',
      errors: [{ path: '$.arguments', bound: 'object' }],
    });
  });

  it('fuzz: JSON-RPC bodies built to be wrong answer a client error, never a server error, and record nothing', async () => {
    const before = await gateway.rowCounts();
    const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('\u0000', '\uD800', 'a\uDFFFb', 's'.repeat(300), ''));
    const json = fc.oneof(fc.jsonValue({ maxDepth: 3 }), text);
    const id = fc.oneof(
      fc.integer(),
      text,
      fc.double(),
      fc.boolean(),
      fc.array(fc.integer(), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
    );
    const meta = fc.dictionary(fc.constantFrom('onceport/intent_scope', 'onceport/wait_ms', 'onceport/actor', 'x'), json, { maxKeys: 3 });
    // Every call is wrong by construction: an unknown tool, or a known one with arguments that are no object.
    const unknownTool = fc.record(
      {
        name: text.map((t) => `fuzz-${t}`),
        arguments: fc.option(fc.dictionary(text, json, { maxKeys: 3 }), { nil: undefined }),
        _meta: fc.option(meta, { nil: undefined }),
      },
      { requiredKeys: ['name'] },
    );
    const badArguments = fc.record(
      {
        name: fc.constantFrom('create_deployment', 'send_payment'),
        arguments: fc.oneof(fc.array(json, { maxLength: 3 }), text, fc.integer(), fc.constant(null), fc.boolean()),
        _meta: fc.option(meta, { nil: undefined }),
      },
      { requiredKeys: ['name', 'arguments'] },
    );
    const params = fc.oneof(unknownTool, badArguments, json);
    const method = fc.oneof(
      fc.constantFrom('tools/call', 'tasks/get', 'resources/read', 'prompts/get'),
      text.filter((m) => !['ping', 'tools/list', 'initialize', 'notifications/initialized'].includes(m)),
    );
    const message = fc.record(
      { jsonrpc: fc.constantFrom('2.0', '2.0', '1.0', 2), id, method, params },
      { requiredKeys: ['jsonrpc', 'id', 'method'] },
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: message.map((m) => JSON.stringify(m)) },
      { weight: 1, arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }).map((m) => JSON.stringify(m)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        expectClientError(await gateway.mcp(raw), 'mcp');
      }),
      { numRuns: 100, seed: Number(process.env['HOSTILE_FUZZ_SEED'] ?? 20_261_201), endOnFailure: true },
    );
    // Every fuzz body goes on the suite's session, so its answers are on the session's stream.
    expect(changedTables(before, await gateway.rowCounts(), SESSION_STREAM)).toEqual({});
  });

  it('a server-side failure answers generically with a correlation id; the real error is in the log under that id', async () => {
    // A real failure inside the store (not a mock): appends mentioning this project fail with a text nobody outside may see.
    await gateway.pool.query(`
      CREATE FUNCTION onceport.hostile_boom() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN RAISE EXCEPTION 'hostile-secret-detail-42 in relation onceport.events'; END $fn$;
      CREATE TRIGGER hostile_boom BEFORE INSERT ON onceport.events FOR EACH ROW
        WHEN (NEW.data::text LIKE '%hostile-boom%') EXECUTE FUNCTION onceport.hostile_boom();`);
    try {
      const args = { project: 'hostile-boom', environment: 'staging', version: '1' };
      const mcp = await gateway.mcp(
        JSON.stringify({ jsonrpc: '2.0', id: 'boom', method: 'tools/call', params: { name: 'create_deployment', arguments: args } }),
      );
      const rest = await gateway.rest('POST', '/v1/executions', JSON.stringify({ tool: 'create_deployment', arguments: args }));
      await gateway.pool.query('ALTER TABLE onceport.rest_agent_processes RENAME TO rest_agent_processes_away');
      const escaped = await gateway
        .rest('POST', '/v1/agent-processes', '{}')
        .finally(() => gateway.pool.query('ALTER TABLE onceport.rest_agent_processes_away RENAME TO rest_agent_processes'));

      expect(mcp.messages[0]).toMatchObject({
        id: 'boom',
        error: { code: -32603, data: { correlation_id: expect.stringMatching(/^err_/) } },
      });
      expect(rest.status).toBe(500);
      expect(rest.messages[0]).toMatchObject({
        type: 'https://onceport.dev/problems/internal-error',
        correlation_id: expect.stringMatching(/^err_/),
      });
      expect(escaped.status).toBe(500);
      expect(escaped.messages[0]).toMatchObject({ correlation_id: expect.stringMatching(/^err_/) });
      for (const reply of [mcp, rest, escaped]) {
        expect(reply.text).not.toMatch(/hostile-secret|\brelation\b|rest_agent_processes|\bstack\b/);
        const correlationId = JSON.stringify(reply.messages[0]).match(/err_[0-9a-f-]{36}/)?.[0] ?? 'none';
        const logged = await until(
          async () =>
            gateway
              .intakeLog()
              .split('\n')
              .find((line) => line.includes(correlationId)) ?? '',
          (line) => line !== '',
          10_000,
        );
        expect(logged).toMatch(/hostile-secret-detail-42|rest_agent_processes/);
      }
    } finally {
      await gateway.pool.query('DROP TRIGGER IF EXISTS hostile_boom ON onceport.events; DROP FUNCTION IF EXISTS onceport.hostile_boom()');
    }
  });

  it('an admin API failure answers a generic 500 with a correlation id; the real error is in the log under that id', async () => {
    // A real failure (not a mock): the quarantine's table is away while an operator lists it.
    await gateway.pool.query('ALTER TABLE onceport.event_quarantine RENAME TO event_quarantine_away');
    const answer = await fetch(`${gateway.authorizationUrl}/v1/admin/quarantine`, {
      headers: { authorization: `Bearer ${gateway.adminKey}` },
    }).finally(() => gateway.pool.query('ALTER TABLE onceport.event_quarantine_away RENAME TO event_quarantine'));
    const text = await answer.text();
    expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({
      status: 500,
      type: 'application/problem+json',
    });
    expect(JSON.parse(text)).toMatchObject({
      type: 'https://onceport.dev/problems/internal-error',
      code: 'internal_error',
      correlation_id: expect.stringMatching(/^err_[0-9a-f-]{36}$/),
    });
    expect(text).not.toMatch(/event_quarantine|\brelation\b|\bstack\b/);
    const correlationId = (JSON.parse(text) as { correlation_id: string }).correlation_id;
    expect(JSON.parse(text).detail).toContain(correlationId);
    const logged = await until(
      async () => logLinesFrom(gateway.authorizationLog(), 0).find((line) => line['correlation_id'] === correlationId) ?? null,
      (line) => line !== null,
      10_000,
    );
    expect(logged).toMatchObject({ level: 'error', where: 'GET /v1/admin/quarantine', error: expect.stringContaining('event_quarantine') });
    expect(logged?.['stack']).toEqual(expect.any(String));
  });

  it('a client that goes away mid-body (REST /v1/executions, an admin endpoint) is one info line: no error, no stack', async () => {
    const cases = [
      { url: gateway.intakeUrl, path: '/v1/executions', key: HOSTILE_KEYS.a, log: () => gateway.intakeLog() },
      {
        url: gateway.authorizationUrl,
        path: '/v1/admin/approvals/apr_01JNQ7ZK3M8V2C4D6F8G0H2J4K/grant',
        key: gateway.adminKey,
        log: () => gateway.authorizationLog(),
      },
    ];
    for (const { url, path, key, log } of cases) {
      const offset = log().length;
      await abortMidBody(url, path, key);
      const isAbortLine = (line: Record<string, unknown>): boolean =>
        line['message'] === 'client aborted the request' && line['path'] === path;
      const lines = await until(
        async () => logLinesFrom(log(), offset),
        (seen) => seen.some(isAbortLine),
        15_000,
      );
      // One line, at info, naming method and path — and nothing else of the request (no error text, no stack).
      const aborts = lines
        .filter(isAbortLine)
        .map(({ level, message, method, error, stack }) => ({ level, message, method, error, stack }));
      expect({ path, aborts }).toEqual({ path, aborts: [{ level: 'info', message: 'client aborted the request', method: 'POST' }] });
      expect(lines.filter((line) => line['level'] === 'error' || line['level'] === 'fatal' || 'stack' in line)).toEqual([]);
    }
  });

  it('after all of it: a call whose answer the target drops is settled by the reconciler, approvals still list, the raw X-Request-Id is not copied', async () => {
    gateway.target.setBehavior({ route: 'deployments', accept_then_drop: true, times: 1 });
    const junkRequestId = `junk request id ${'z'.repeat(300)}`;
    const call = await gateway.rest(
      'POST',
      '/v1/executions',
      JSON.stringify({
        tool: 'create_deployment',
        arguments: { project: 'hostile-after', environment: 'staging', version: '2.0.0' },
        wait_ms: 0,
      }),
      { 'x-request-id': junkRequestId },
    );
    expect(call.status).toBeLessThan(300);
    const executionId = String(call.messages[0]?.['execution_id']);
    const types = async () =>
      (
        await gateway.pool.query<{ event_type: string }>(
          'SELECT event_type FROM onceport.events WHERE stream_id = $1 ORDER BY stream_version',
          [`execution-${executionId}`],
        )
      ).rows.map((r) => r.event_type);
    const settled = await until(types, (t) => t.includes('OutcomeSettled'), 90_000);
    expect(settled).toEqual(expect.arrayContaining(['ExecutionAccepted', 'DispatchStarted', 'OutcomeUnknown', 'OutcomeSettled']));
    expect(gateway.target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === 'hostile-after')).toHaveLength(1);
    const copied = await gateway.pool.query<{ n: string }>('SELECT count(*) AS n FROM onceport.events WHERE metadata::text LIKE $1', [
      '%junk request id%',
    ]);
    expect(Number(copied.rows[0]?.n)).toBe(0);

    const approvals = await fetch(`${gateway.authorizationUrl}/v1/admin/approvals`, {
      headers: { authorization: `Bearer ${gateway.adminKey}` },
    });
    expect(approvals.status).toBe(200);
    // The agent that sent all of it still gets answers.
    const status = await fetch(`${gateway.intakeUrl}/v1/executions/${executionId}`, {
      headers: { authorization: `Bearer ${HOSTILE_KEYS.a}` },
    });
    expect(status.status).toBe(200);
  });
});
