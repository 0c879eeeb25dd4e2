/**
 * Is the pass-through proxy a fair floor for the MCP layer? One tool call served three ways with
 * the official SDK, interleaved call by call in one run: the bench's proxy (a server and transport
 * per session, as intake keeps them; answered over SSE, as intake answers), the SDK's stateless way
 * (a new server and transport per request) and the bench's proxy answering with one JSON body
 * instead of an SSE stream. Each forwards to the same local target; the client is the SDK's, one
 * session per way; everything in this one process, so compare the ways, not the absolutes.
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/scripts/mcp-layer-variants.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPassThroughProxy } from '../src/baseline/pass-through-proxy';
import { mcpCaller, timed } from '../src/callers/callers';
import { shuffled } from '../src/scenarios/shuffle';
import { summarize } from '../src/stats/summary';

const CALLS = Number(process.env['CALLS'] ?? 600);
const WARM_UP = 50;
const BENCH_PROXY = 'per session, SSE (the bench proxy)';

async function main(): Promise<void> {
  const target = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"deployment":"ok"}'));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  const proxies = {
    [BENCH_PROXY]: await startPassThroughProxy(targetUrl),
    'per request, SSE (SDK stateless)': await startPassThroughProxy(targetUrl, 0, { stateless: true }),
    'per session, JSON answers': await startPassThroughProxy(targetUrl, 0, { jsonAnswers: true }),
  };
  const ways = await Promise.all(
    Object.entries(proxies).map(async ([name, proxy]) => ({ name, caller: await mcpCaller(proxy.url, null, name) })),
  );
  const samples = new Map<string, number[]>(ways.map((way) => [way.name, []]));
  for (let i = 0; i < CALLS; i++) {
    for (const way of shuffled(ways)) {
      const { ms } = await timed(() => way.caller.call(`p${i}`, `v${i}`));
      if (i >= WARM_UP) samples.get(way.name)?.push(ms);
    }
  }
  const base = summarize(samples.get(BENCH_PROXY) ?? []).p50;
  for (const [name, ms] of samples) {
    const s = summarize(ms);
    console.log(
      `${name.padEnd(36)} p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  ÷ the bench proxy ${(s.p50 / base).toFixed(2)}×`,
    );
  }
  await Promise.all(ways.map((way) => way.caller.close()));
  await Promise.all(Object.values(proxies).map((proxy) => proxy.close()));
  target.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
