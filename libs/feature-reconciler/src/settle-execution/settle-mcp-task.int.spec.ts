import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MCP_RESULT_CONTENT_TYPE } from '@onceport/contracts';
import { type McpToolContract, type ToolContract, newExecutionId, parseKeyring } from '@onceport/domain';
import { executionStream } from '@onceport/event-store';
import { type TestDatabase, createTestDatabase } from '@onceport/event-store/testing';
import { type ServicePorts, openServicePorts } from '@onceport/service-kit';
import { testArgumentSealer } from '@onceport/service-kit/testing';
import { CredentialResolver, HttpChannel, McpChannel } from '@onceport/target-channels';
import { type HttpUpstream, endTasks, startHttpUpstream } from '@onceport/test-upstream';
import { recordUnknownExecution } from '../testing/unknown-execution';
import { SettleExecutionHandler, type SettleOutcome } from './settle-execution.handler';

const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);

/**
 * Settling an MCP execution by the task its upstream answered with (real PostgreSQL, the real test
 * upstream over Streamable HTTP, the MCP channel the dispatcher uses): the reconciler polls
 * `tasks/get` and settles by what the task says — the effect applied once.
 */
describe('settling MCP executions from the upstream task (real PostgreSQL, real MCP upstream)', () => {
  let db: TestDatabase;
  let runtime: ServicePorts;
  let stateDir: string;
  let upstream: HttpUpstream;
  const http = new HttpChannel();
  const mcp = new McpChannel();
  const contracts = new Map<string, ToolContract>();

  const handler = () =>
    new SettleExecutionHandler({
      commands: runtime.commands,
      results: runtime.results,
      tracer: runtime.tracer,
      contracts,
      channel: http,
      mcp,
      sealer: testArgumentSealer(),
      credentials: new CredentialResolver({}, null),
      reconcilerId: 'r-mcp',
      limits: { maxProbes: 3, probeBackoffMs: 10, maxProbeBackoffMs: 20, maxAttempts: 3 },
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    runtime = await openServicePorts({
      serviceName: 'reconciler-mcp-test',
      databaseUrl: db.url,
      natsUrl: 'nats://127.0.0.1:4222',
      delivery: 'in_process',
    });
    stateDir = mkdtempSync(join(tmpdir(), 'onceport-settle-task-'));
    upstream = await startHttpUpstream({ stateDir, taskDelayMs: null });
  });
  afterAll(async () => {
    await mcp.close();
    await http.close();
    await upstream?.stop();
    await runtime?.close();
    await db?.drop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  function taskTool(name: string): McpToolContract {
    const contract: McpToolContract = {
      name,
      title: name,
      description: name,
      credentialRef: null,
      argumentsSchema: { type: 'object', properties: {}, required: [], additionalProperties: true },
      argumentSpecs: {},
      effect: 'irreversible',
      effectDeclared: true,
      correlationWindowMs: 3_600_000,
      ledgerRetentionMs: null,
      approval: 'none',
      deliberateRepeats: 'allowed',
      source: { file: 'test', index: 0, line: null },
      channel: 'mcp',
      target: {
        upstream: {
          name: 'tasks',
          transport: 'http',
          url: upstream.url,
          auth: { kind: 'none' },
          protocol: '2026-07-28',
          connectTimeoutMs: 10_000,
          credentialRef: null,
        },
        tool: 'maybe_task',
        timeoutMs: 800,
        maxResultBytes: 1_048_576,
        idempotencyMetaKey: null,
      },
      probe: { kind: 'mcp_task' },
    } as McpToolContract;
    contracts.set(name, contract);
    return contract;
  }

  /** Dispatched through the real channel (the task outlives the call's timeout), recorded unknown with its task id. */
  async function unknownWithTask(contract: McpToolContract, key: string, taskId?: string): Promise<string> {
    const executionId = newExecutionId(Date.now(), randomBytes(10));
    const outcome = taskId ? null : await mcp.send({ contract, executionId, arguments: { key }, credential: null });
    const upstreamTaskId = taskId ?? (outcome as { upstreamTaskId: string }).upstreamTaskId;
    expect(upstreamTaskId).toEqual(expect.any(String));
    return recordUnknownExecution(runtime.commands, {
      executionId,
      contract,
      keyring,
      reason: 'task_unfinished: test',
      arguments: { key },
      upstreamTaskId,
    });
  }
  const load = (id: string) => runtime.commands.load(executionStream(id));

  /** Settles again whenever the handler says to wait, until it stops waiting: states, not sleeps. */
  async function settleUntilDone(id: string, settler = handler()): Promise<SettleOutcome> {
    let outcome = await settler.settle(id, { causationId: 'test' });
    for (const deadline = Date.now() + 30_000; outcome.done === 'wait' && Date.now() < deadline;) {
      await sleep(Math.max(10, Math.min(200, (outcome.nextCheckAtMs ?? 0) - Date.now())));
      outcome = await settler.settle(id, { causationId: 'test' });
    }
    return outcome;
  }

  it('a task still working: read again later without spending a probe; once completed, settled completed with its result (1 effect)', async () => {
    const contract = taskTool('t_done');
    const id = await unknownWithTask(contract, 'done');
    expect((await load(id)).state).toMatchObject({
      status: 'dispatched_unknown',
      unknown: { upstreamTaskId: expect.stringMatching(/^tsk_/) },
    });

    const settler = handler();
    expect(await settler.settle(id, { causationId: 'test' })).toMatchObject({ done: 'wait', status: 'dispatched_unknown' });
    expect((await load(id)).events.map((e) => e.type)).not.toContain('ProbeAttempted');

    endTasks(stateDir);
    expect(await settleUntilDone(id, settler)).toMatchObject({ done: 'settle', status: 'completed_result_not_delivered' });
    const settled = (await load(id)).events.at(-1);
    expect(settled).toMatchObject({ type: 'OutcomeSettled', data: { settlement: 'completed', targetStatus: 0 } });
    const ref = settled?.type === 'OutcomeSettled' ? (settled.data.result?.ref ?? '') : '';
    const stored = await runtime.results.get(ref);
    expect(stored?.reference.contentType).toBe(MCP_RESULT_CONTENT_TYPE);
    expect(JSON.parse(stored?.body.toString() ?? '{}')).toMatchObject({
      structuredContent: { key: 'done', replayed: false },
      isError: false,
    });
    expect(upstream.effects({ key: 'done' })).toHaveLength(1);
  });

  it('a task that failed: settled failed (the tool ran and failed), never authorized again', async () => {
    const contract = taskTool('t_failed');
    const id = await unknownWithTask(contract, 'failed');
    endTasks(stateDir, 'failed');
    expect(await settleUntilDone(id)).toMatchObject({ status: 'failed' });
    expect((await load(id)).events.at(-1)).toMatchObject({ type: 'OutcomeSettled', data: { settlement: 'failed', targetStatus: 1 } });
    expect((await load(id)).events.filter((e) => e.type === 'ExecutionAuthorized')).toHaveLength(1);
    expect(upstream.effects({ key: 'failed' })).toHaveLength(1);
  });

  it('a task the upstream does not know: probes that cannot tell, then a human (never "not applied")', async () => {
    const contract = taskTool('t_unknown');
    const id = await unknownWithTask(contract, 'unknown', 'tsk_000000000000000000000000');
    expect(await settleUntilDone(id)).toMatchObject({ status: 'needs_review' });
    const probes = (await load(id)).events.filter((e) => e.type === 'ProbeAttempted');
    expect(probes).toHaveLength(3);
    expect(probes[0]).toMatchObject({ data: { verdict: 'cant_tell', detail: expect.stringContaining('unknown to the upstream') } });
  });
});
