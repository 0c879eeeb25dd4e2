import { once } from 'node:events';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExecutionWatcher } from '../await-outcome/execution-watcher';
import type { IntakeDependencies } from '../intake-dependencies';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { RestAgentProcesses } from './agent-processes';
import { AgentProcessesController } from './agent-processes.controller';

const KEYS: Record<string, string> = { 'key-a': 'agent:a', 'key-b': 'agent:b' };

interface Reply {
  readonly status: number;
  readonly type: string | null;
  readonly body: Record<string, unknown>;
}

/**
 * REST agent processes are issued by intake and bound to their actor (real PostgreSQL, two intake
 * "replicas" — each its own controllers and RestAgentProcesses over one database): a REST call
 * may name only a process issued to its own actor, so a made-up or another actor's name cannot
 * step into a session a human granted. Nothing dispatches; the calls stay accepted.
 */
describe('REST agent processes: issued by the server, bound to the actor', () => {
  let h: IntakeHarness;
  const servers: Server[] = [];
  const watchers: ExecutionWatcher[] = [];
  let replicaA: string;
  let replicaB: string;

  async function replica(): Promise<string> {
    const deps: IntakeDependencies = { ...h.deps, actors: { authenticate: (token) => (KEYS[token] ? { id: KEYS[token] } : null) } };
    const watcher = new ExecutionWatcher(h.ports.pool, () => undefined);
    await watcher.start();
    watchers.push(watcher);
    const processes = new RestAgentProcesses(h.deps.em);
    const executions = h.executionsController(deps, watcher, { processes });
    const agentProcesses = new AgentProcessesController(deps, processes);
    const server = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/agent-processes') return void agentProcesses.issue(req, res);
      if (req.method === 'POST' && req.url === '/v1/executions') return void executions.create(req, res);
      res.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function post(
    base: string,
    path: string,
    key: string | null,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      body: (await response.json()) as Record<string, unknown>,
    };
  }

  const issue = async (base: string, key: string): Promise<string> => {
    const issued = await post(base, '/v1/agent-processes', key);
    expect(issued.status).toBe(201);
    return String(issued.body['agent_process']);
  };
  const deploy = (project: string) => ({
    tool: 'create_deployment',
    arguments: { project, environment: 'staging', version: '1.0.0', notes: 'n' },
  });
  const acceptedCount = async (): Promise<number> => (await h.allEvents()).filter((e) => e.type === 'ExecutionAccepted').length;
  const acceptedProcessOf = async (executionId: string): Promise<unknown> =>
    (await h.allEvents()).find((e) => e.type === 'ExecutionAccepted' && e.data['executionId'] === executionId)?.data['agentProcess'];

  beforeAll(async () => {
    h = await startIntakeHarness();
    replicaA = await replica();
    replicaB = await replica();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await Promise.all(watchers.map((w) => w.stop()));
    await h?.close();
  });

  it('issues a fresh unguessable id bound to the calling actor, recorded in PostgreSQL', async () => {
    const first = await post(replicaA, '/v1/agent-processes', 'key-a');
    expect(first).toMatchObject({
      status: 201,
      body: { agent_process: expect.stringMatching(/^rap_[A-Za-z0-9_-]{43}$/), actor: 'agent:a', issued_at: expect.any(String) },
    });
    const second = await issue(replicaA, 'key-a');
    expect(second).not.toBe(first.body['agent_process']);
    const rows = await h.db.pool.query<{ actor: string }>('SELECT actor FROM onceport.rest_agent_processes WHERE agent_process = ANY($1)', [
      [first.body['agent_process'], second],
    ]);
    expect(rows.rows.map((r) => r.actor)).toEqual(['agent:a', 'agent:a']);
    expect(await post(replicaA, '/v1/agent-processes', null)).toMatchObject({ status: 401, type: 'application/problem+json' });
    expect(await post(replicaA, '/v1/agent-processes', 'key-wrong')).toMatchObject({ status: 401 });
  });

  it('accepts a call naming a process issued to its actor — on any replica — and records it as the agent process', async () => {
    const processId = await issue(replicaA, 'key-a');
    const onB = await post(replicaB, '/v1/executions', 'key-a', deploy('issued-on-a'), { 'onceport-agent-process': processId });
    expect(onB.status).toBe(202);
    expect(await acceptedProcessOf(String(onB.body['execution_id']))).toBe(processId);
  });

  it('refuses a made-up process name (400) and another actor’s process (403) with a problem saying how to get one, creating nothing', async () => {
    const before = await acceptedCount();
    const madeUp = await post(replicaA, '/v1/executions', 'key-a', deploy('made-up'), { 'onceport-agent-process': 'runtime-night-1' });
    expect(madeUp).toMatchObject({
      status: 400,
      type: 'application/problem+json',
      body: {
        type: 'https://onceport.dev/problems/unknown-agent-process',
        status: 400,
        detail: expect.stringContaining('POST /v1/agent-processes'),
      },
    });
    // Shaped like an issued id, but never issued.
    const forged = await post(replicaA, '/v1/executions', 'key-a', deploy('forged'), { 'onceport-agent-process': `rap_${'A'.repeat(43)}` });
    expect(forged).toMatchObject({ status: 400, body: { type: 'https://onceport.dev/problems/unknown-agent-process' } });

    const ofB = await issue(replicaB, 'key-b');
    const stolen = await post(replicaA, '/v1/executions', 'key-a', deploy('stolen'), { 'onceport-agent-process': ofB });
    expect(stolen).toMatchObject({
      status: 403,
      type: 'application/problem+json',
      body: {
        type: 'https://onceport.dev/problems/agent-process-of-another-actor',
        detail: expect.stringContaining('POST /v1/agent-processes'),
      },
    });
    // Also with an Idempotency-Key: the check comes before any key is bound.
    const keyed = await post(replicaA, '/v1/executions', 'key-a', deploy('stolen'), {
      'onceport-agent-process': ofB,
      'idempotency-key': 'k-stolen-1',
    });
    expect(keyed.status).toBe(403);
    expect(await acceptedCount()).toBe(before);
    // The same key, now with the actor's own process, is free to use.
    const own = await issue(replicaA, 'key-a');
    expect(
      (
        await post(replicaA, '/v1/executions', 'key-a', deploy('stolen'), {
          'onceport-agent-process': own,
          'idempotency-key': 'k-stolen-1',
        })
      ).status,
    ).toBe(202);
  });

  it('a call without the header names no agent process, as before (the actor stands for it)', async () => {
    const plain = await post(replicaA, '/v1/executions', 'key-a', deploy('no-header'));
    expect(plain.status).toBe(202);
    expect(await acceptedProcessOf(String(plain.body['execution_id']))).toBeNull();
  });
});
