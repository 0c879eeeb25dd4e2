import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies } from '../intake-dependencies';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { RestAgentProcesses } from './agent-processes';

const KEYS: Record<string, string> = { 'key-a': 'agent:a', 'key-b': 'agent:b' };

interface RawReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

/**
 * REST against a real intake controller over real PostgreSQL (nothing dispatches: the test plays
 * authorization and dispatcher with `h.complete`). The IETF Idempotency-Key draft's "a reused key
 * after completion returns the stored response", byte for byte; and the key is the only actor there
 * is: another actor's execution or a claim naming someone else is 401, and nothing is recorded.
 */
describe('REST: Idempotency-Key replays the stored response; the API key is the actor', () => {
  let h: IntakeHarness;
  let server: Server;
  let watcher: ExecutionWatcher;
  let base: string;

  beforeAll(async () => {
    h = await startIntakeHarness();
    const deps: IntakeDependencies = { ...h.deps, actors: { authenticate: (token) => (KEYS[token] ? { id: KEYS[token] } : null) } };
    watcher = new ExecutionWatcher(h.ports.pool, () => undefined);
    await watcher.start();
    const controller = h.executionsController(deps, watcher, { processes: new RestAgentProcesses(h.deps.em) });
    server = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/executions') return void controller.create(req, res);
      const get = /^\/v1\/executions\/([^/]+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && get) return void controller.get(get[1] ?? '', req, res);
      res.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await watcher?.stop();
    await h?.close();
  });

  async function call(
    method: string,
    path: string,
    key: string | null,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RawReply> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as Record<string, unknown> };
  }

  const deploy = (project: string, extra: Record<string, unknown> = {}) => ({
    tool: 'create_deployment',
    arguments: { project, environment: 'staging', version: '1.0.0', notes: 'n' },
    ...extra,
  });
  const accepted = async (): Promise<Array<Record<string, unknown>>> =>
    (await h.allEvents()).filter((e) => e.type === 'ExecutionAccepted').map((e) => e.data);
  async function acceptedFor(project: string): Promise<string> {
    for (let i = 0; i < 200; i += 1) {
      const found = (await accepted()).find((data) => (data['arguments'] as Record<string, unknown>)['project'] === project);
      if (found) return String(found['executionId']);
      await sleep(25);
    }
    throw new Error(`no execution was accepted for ${project}`);
  }

  describe('Idempotency-Key (IETF httpapi draft)', () => {
    it('a reuse after completion gets the first response byte for byte, with the same status, marked only by a header', async () => {
      const key = 'idem-completed-1';
      const first = call('POST', '/v1/executions', 'key-a', deploy('idem-one', { wait_ms: 10_000 }), { 'idempotency-key': key });
      await h.complete(await acceptedFor('idem-one'));
      const original = await first;
      expect(original.status).toBe(200);
      expect(original.body).toMatchObject({ state: 'completed', replay: false, attached: false });
      expect(original.headers.get('idempotent-replayed')).toBeNull();

      const again = await call('POST', '/v1/executions', 'key-a', deploy('idem-one', { wait_ms: 10_000 }), { 'idempotency-key': key });
      expect(again.status).toBe(original.status);
      expect(again.text).toBe(original.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('location')).toBe(`/v1/executions/${String(original.body['execution_id'])}`);

      // Later still (the first delivery recorded, the execution `completed`): the same bytes.
      const later = await call('POST', '/v1/executions', 'key-a', deploy('idem-one'), { 'idempotency-key': key });
      expect(later.text).toBe(original.text);
      const rows = await h.db.pool.query(
        'SELECT status, body FROM onceport.rest_idempotent_responses WHERE actor = $1 AND idempotency_key = $2',
        ['agent:a', key],
      );
      expect(rows.rows).toEqual([{ status: 200, body: original.text }]);
      expect((await accepted()).filter((d) => (d['arguments'] as Record<string, unknown>)['project'] === 'idem-one')).toHaveLength(1);
    });

    it('a response answered before completion is not kept; the first answer after completion is, and is replayed from then on', async () => {
      const key = 'idem-late-1';
      const pending = await call('POST', '/v1/executions', 'key-a', deploy('idem-late', { wait_ms: 0 }), { 'idempotency-key': key });
      expect(pending.status).toBe(202);
      const id = String(pending.body['execution_id']);
      const inFlight = await call('POST', '/v1/executions', 'key-a', deploy('idem-late'), { 'idempotency-key': key });
      expect(inFlight).toMatchObject({ status: 409, body: { execution_id: id, state: 'accepted' } });

      await h.complete(id);
      const firstDone = await call('POST', '/v1/executions', 'key-a', deploy('idem-late'), { 'idempotency-key': key });
      expect(firstDone.status).toBe(200);
      expect(firstDone.body).toMatchObject({ execution_id: id, state: 'completed', replay: true });
      const replayed = await call('POST', '/v1/executions', 'key-a', deploy('idem-late'), { 'idempotency-key': key });
      expect(replayed.text).toBe(firstDone.text);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    });

    it('a reuse with another payload stays 422, also after completion', async () => {
      const other = await call('POST', '/v1/executions', 'key-a', deploy('idem-other'), { 'idempotency-key': 'idem-completed-1' });
      expect(other).toMatchObject({ status: 422, body: { type: 'https://onceport.dev/problems/idempotency-key-reused' } });
    });

    it('one key sent at once with eight different payloads: one execution is accepted, the seven others get 422 and record nothing', async () => {
      const key = 'idem-raced-1';
      const projects = Array.from({ length: 8 }, (_, i) => `idem-race-${i}`);
      const replies = await Promise.all(
        projects.map((project) => call('POST', '/v1/executions', 'key-a', deploy(project, { wait_ms: 0 }), { 'idempotency-key': key })),
      );
      const winners = replies.filter((reply) => reply.status === 202);
      expect(winners).toHaveLength(1);
      const winner = String(winners[0]?.body['execution_id']);
      const refused = replies.filter((reply) => reply.status === 422);
      expect(refused).toHaveLength(7);
      for (const reply of refused) {
        expect(reply.body).toMatchObject({ type: 'https://onceport.dev/problems/idempotency-key-reused', execution_id: winner });
      }
      // A refused request was never accepted: no execution of its payload exists to run behind the 422.
      const racedAccepted = (await accepted()).filter((d) =>
        projects.includes(String((d['arguments'] as Record<string, unknown>)['project'])),
      );
      expect(racedAccepted.map((d) => d['executionId'])).toEqual([winner]);
    });

    it('one key sent at once eight times with one payload: one execution, the seven others hear it is in flight (409)', async () => {
      const key = 'idem-raced-2';
      const replies = await Promise.all(
        Array.from({ length: 8 }, () =>
          call('POST', '/v1/executions', 'key-a', deploy('idem-race-same', { wait_ms: 0 }), { 'idempotency-key': key }),
        ),
      );
      const winners = replies.filter((reply) => reply.status === 202);
      expect(winners).toHaveLength(1);
      const winner = String(winners[0]?.body['execution_id']);
      const inFlight = replies.filter((reply) => reply.status === 409);
      expect(inFlight.map((reply) => reply.body['execution_id'])).toEqual(Array.from({ length: 7 }, () => winner));
      const sameAccepted = (await accepted()).filter((d) => (d['arguments'] as Record<string, unknown>)['project'] === 'idem-race-same');
      expect(sameAccepted.map((d) => d['executionId'])).toEqual([winner]);
    });
  });

  describe('authentication: the API key is the actor', () => {
    it("another actor's execution is 401 with a problem that names neither that actor nor the execution's content", async () => {
      const mine = await call('POST', '/v1/executions', 'key-a', deploy('secret-project-a'));
      const id = String(mine.body['execution_id']);
      expect((await call('GET', `/v1/executions/${id}`, 'key-a')).status).toBe(200);
      const other = await call('GET', `/v1/executions/${id}`, 'key-b');
      expect(other).toMatchObject({
        status: 401,
        body: {
          type: 'https://onceport.dev/problems/execution-of-another-actor',
          status: 401,
          detail: expect.stringMatching(/not started by this API key's actor/),
        },
      });
      expect(other.headers.get('content-type')).toBe('application/problem+json');
      expect(other.text).not.toMatch(/agent:a|secret-project-a|timeline|create_deployment/);
      // An id that does not exist at all is still 404.
      expect((await call('GET', '/v1/executions/exe_01JNQ7ZK3M8V2C4D6F8G0H2J4K', 'key-b')).status).toBe(404);
    });

    it('no key, a wrong key, or an actor claim (header or body field) naming another actor: 401, nothing recorded', async () => {
      const before = (await accepted()).length;
      // New streams, not all events: an earlier test's delivery, recorded after its response, may land meanwhile.
      const streamsBefore = new Set((await h.allEvents()).map((event) => event.streamId));
      const cases: Array<[string, string | null, unknown, Record<string, string>]> = [
        ['no key', null, deploy('claim-none'), {}],
        ['wrong key', 'key-wrong', deploy('claim-wrong'), {}],
        ['body actor', 'key-a', deploy('claim-body', { actor: 'agent:b' }), {}],
        ['header Onceport-Actor', 'key-a', deploy('claim-header'), { 'onceport-actor': 'agent:b' }],
        ['header X-Onceport-Actor', 'key-a', deploy('claim-x-header'), { 'x-onceport-actor': 'agent:b' }],
        ['body actor with a key', 'key-a', deploy('claim-keyed', { actor: 'agent:b' }), { 'idempotency-key': 'claim-keyed-1' }],
      ];
      for (const [name, key, body, headers] of cases) {
        const reply = await call('POST', '/v1/executions', key, body, headers);
        expect({ name, status: reply.status }).toEqual({ name, status: 401 });
      }
      const mismatch = await call('POST', '/v1/executions', 'key-a', deploy('claim-body', { actor: 'agent:b' }));
      expect(mismatch.body).toMatchObject({
        type: 'https://onceport.dev/problems/actor-mismatch',
        detail: expect.stringMatching(/body field actor claims actor "agent:b", but this API key belongs to "agent:a"/),
      });
      const header = await call('POST', '/v1/executions', 'key-a', deploy('claim-header'), { 'onceport-actor': 'agent:b' });
      expect(header.body['detail']).toMatch(/header onceport-actor claims actor "agent:b"/);
      await sleep(300); // anything a refused call might have left behind has had time to land
      expect((await accepted()).length).toBe(before);
      expect((await h.allEvents()).filter((event) => !streamsBefore.has(event.streamId))).toEqual([]);
    });

    it("a claim naming the key's own actor is accepted, and the fingerprint's actor is the authenticated one", async () => {
      const own = await call('POST', '/v1/executions', 'key-b', deploy('claim-own', { actor: 'agent:b' }), { 'onceport-actor': 'agent:b' });
      expect(own.status).toBe(202);
      const data = (await accepted()).find((d) => d['executionId'] === own.body['execution_id']);
      expect(data?.['actor']).toBe('agent:b');
      // The same call under key-a is another actor's intent: a second execution, not an attach.
      const sameArgsOtherKey = await call('POST', '/v1/executions', 'key-a', deploy('claim-own'));
      expect(sameArgsOtherKey.body['execution_id']).not.toBe(own.body['execution_id']);
    });
  });
});
