import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_POINTS } from '@onceport/fault-points';
import {
  type HttpUpstream,
  IDEMPOTENCY_META_KEY,
  readEffects,
  setBehavior,
  startHttpUpstream,
  stdioUpstreamCommand,
} from '@onceport/test-upstream';
import { FaultCluster, type StoredEventRow, type Verdict, printTable } from './fault-cluster';

/**
 * The fault suite's MCP upstream cases: the test upstream (libs/test-upstream) counts effects in a
 * state directory, over stdio (a child process of the dispatcher) and over Streamable HTTP. Faults
 * hit between the upstream applying a call and Onceport storing its outcome; each case ends with
 * 0 duplicate effects at the upstream, nothing lost, nothing stuck.
 */
const verdicts: Verdict[] = [];
let cluster: FaultCluster | null = null;
let stateDir: string;
let http: HttpUpstream | null = null;

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'onceport-upstream-faults-'));
});
afterEach(async () => {
  await cluster?.stop();
  cluster = null;
  await http?.stop();
  http = null;
  rmSync(stateDir, { recursive: true, force: true });
});
afterAll(() => printTable(verdicts));

/**
 * Short timeouts: a dispatch lease covers the longest send (connect + call), and the reconciler
 * steps in only once it has run out. Two tools of one upstream: the idempotent one passes the execution id as the upstream's idempotency key, the other declares nothing. */
function upstreamContracts(upstream: string): string {
  const tool = (name: string, upstreamTool: string, extra: string) => `
  - name: ${name}
    description: ${name}
    channel: mcp
    target: { upstream: up, tool: ${upstreamTool}, timeout: 3s${extra} }
    arguments:
      type: object
      properties: { key: { type: string }, ms: { type: integer } }
      required: [key]
    roles: { key: identity, ms: generated }`;
  return `
upstreams:
${upstream}
tools:${tool('up_idempotent', 'record_effect', `, idempotency_meta_key: ${IDEMPOTENCY_META_KEY}`)}
    effect: idempotent${tool('up_slow_idempotent', 'slow_effect', `, idempotency_meta_key: ${IDEMPOTENCY_META_KEY}`)}
    effect: idempotent${tool('up_undeclared', 'record_effect', '')}
`;
}

function stdioUpstream(): string {
  const { command, args, env } = stdioUpstreamCommand(stateDir, { taskDelayMs: null });
  return `  - name: up
    transport: stdio
    command: ${JSON.stringify(command)}
    args: ${JSON.stringify(args)}
    env: ${JSON.stringify(env)}
    connect_timeout: 10s`;
}

const effects = (key: string) => readEffects(stateDir).filter((e) => e.key === key);
const ofTool = (events: StoredEventRow[], tool: string) => {
  const stream = events.find((e) => e.type === 'ExecutionAccepted' && e.data['tool'] === tool)?.streamId;
  return events.filter((e) => e.streamId === stream);
};
const ofType = (events: StoredEventRow[], type: string) => events.filter((e) => e.type === type);

async function judge(name: string): Promise<Verdict> {
  if (!cluster) throw new Error('no cluster');
  // A lease here is the longest send (connect 10 s + call 3 s + margin): healing takes up to two of them.
  await cluster.drain(90_000);
  const verdict = await cluster.verdict(name);
  verdicts.push(verdict);
  expect(verdict).toMatchObject({ lost: 0, stuck: 0, chainOk: true });
  return verdict;
}

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('fault suite, MCP upstreams: the upstream applied the call, its outcome never reached the store', () => {
  it('U1. the dispatcher dies after the upstream answered, before the outcome is stored: idempotent → sent again under the same key, applied once; undeclared → needs_review; 1 effect each', async () => {
    cluster = await FaultCluster.start({
      faults: { dispatcher: FAULT_POINTS.dispatcherAfterSend },
      contracts: { 'upstream.yaml': upstreamContracts(stdioUpstream()) },
    });
    // The undeclared one first: it is never sent again, so the second faulty dispatcher can only die on the other.
    await cluster.call('up_undeclared', { key: 'u1-undeclared' }, 'u1-undeclared');
    await cluster.waitForExit('dispatcher');
    await cluster.startApp('dispatcher', FAULT_POINTS.dispatcherAfterSend);
    await cluster.call('up_idempotent', { key: 'u1-idempotent' }, 'u1-idempotent');
    await cluster.waitForExit('dispatcher');
    await cluster.restart('dispatcher');
    const verdict = await judge('U1 dispatcher killed after the upstream answered');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1, needs_review: 1 });
    expect(effects('u1-undeclared')).toHaveLength(1);
    expect(effects('u1-idempotent')).toHaveLength(1);
    const events = await cluster.events();
    // idempotent: sent twice under one execution id, the upstream applied it once.
    expect(ofType(ofTool(events, 'up_idempotent'), 'DispatchStarted')).toHaveLength(2);
    // undeclared (irreversible): never sent again, a human settles it.
    const undeclared = ofTool(events, 'up_undeclared');
    expect(ofType(undeclared, 'DispatchStarted')).toHaveLength(1);
    expect(ofType(undeclared, 'OutcomeSettled').map((e) => e.data['settlement'])).toEqual(['needs_review']);
  });

  it('U2. the stdio upstream process dies after applying, before it answers: unknown, sent again to a restarted process under the same key; 1 effect', async () => {
    setBehavior(stateDir, { kind: 'cut_after_apply', tool: 'record_effect', key: 'u2', times: 1 });
    cluster = await FaultCluster.start({ contracts: { 'upstream.yaml': upstreamContracts(stdioUpstream()) } });
    await cluster.call('up_idempotent', { key: 'u2' }, 'u2');
    const verdict = await judge('U2 stdio upstream died mid-call');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1 });
    expect(effects('u2')).toHaveLength(1);
    const events = ofTool(await cluster.events(), 'up_idempotent');
    expect(ofType(events, 'OutcomeUnknown').map((e) => String(e.data['reason']))).toEqual([
      expect.stringMatching(/process_exited|connection_lost/),
    ]);
    expect(ofType(events, 'DispatchStarted')).toHaveLength(2);
  });

  it('U3. the HTTP upstream is restarted while a call is in its hands: unknown, sent again after the restart under the same key; 1 effect', async () => {
    http = await startHttpUpstream({ stateDir });
    cluster = await FaultCluster.start({
      contracts: {
        'upstream.yaml': upstreamContracts(`  - name: up\n    transport: http\n    url: ${http.url}\n    connect_timeout: 10s`),
      },
    });
    const call = cluster.call('up_slow_idempotent', { key: 'u3', ms: 2000 }, 'u3');
    await until('the upstream to apply the call', () => effects('u3').length === 1);
    await http.restart();
    await call;
    const verdict = await judge('U3 HTTP upstream restarted mid-call');
    expect(verdict.states).toEqual({ completed_result_not_delivered: 1 });
    expect(effects('u3')).toHaveLength(1);
    const events = ofTool(await cluster.events(), 'up_slow_idempotent');
    expect(ofType(events, 'OutcomeUnknown')).toHaveLength(1);
  });
});
