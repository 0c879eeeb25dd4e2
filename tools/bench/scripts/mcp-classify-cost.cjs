// CPU per MCP request of telling the protocol eras apart (intake's McpController), side by side in
// one run (rounds alternate): the SDK's isLegacyRequest given the body intake already parsed, and
// without it (it then clones the web request and parses the body again).
// `node tools/bench/scripts/mcp-classify-cost.cjs [requests]`
'use strict';
const { Readable } = require('node:stream');
const { toWebRequest } = require('@modelcontextprotocol/node');
const { isLegacyRequest } = require('@modelcontextprotocol/server');

const requests = Number(process.argv[2] ?? 5000);
const body = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'create_deployment', arguments: { project: 'p', environment: 'staging', version: '1' } },
};
/** An incoming POST as node:http hands it over, its body already read. */
const incoming = () =>
  Object.assign(Readable.from([]), {
    method: 'POST',
    url: '/mcp',
    headers: {
      host: '127.0.0.1:3000',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'mcp-session-id': '6f1c2b8e-0d7a-4d1e-9a53-2f4b8c9e1a70',
      authorization: 'Bearer key',
    },
  });

async function cpuPerRequest(passParsedBody) {
  const before = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const request = await toWebRequest(incoming(), body);
    const legacy = passParsedBody ? await isLegacyRequest(request, body) : await isLegacyRequest(request);
    if (!legacy) throw new Error('a 2025-11-25 request must classify as legacy');
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

(async () => {
  const reparsed = [];
  const parsed = [];
  for (let round = 0; round < 3; round++) {
    reparsed.push(await cpuPerRequest(false));
    parsed.push(await cpuPerRequest(true));
  }
  const median = (values) => [...values].sort((a, b) => a - b)[1];
  console.log(
    `CPU per request, median of 3 rounds of ${requests}: body parsed again ${median(reparsed).toFixed(0)} µs, parsed body given ${median(parsed).toFixed(0)} µs (${(median(parsed) / median(reparsed)).toFixed(2)}×)`,
  );
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
