import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import { type McpTestServer, serveMcp } from '../testing/mcp-test-server';

const REVISION = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'modern-input-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const DEPLOY = { name: 'create_deployment', arguments: { project: 'modern-input', environment: 'staging', version: '1.0.0' } };

/**
 * Bad 2026-07-28 requests at intake's real MCP controller (real PostgreSQL): missing or
 * contradictory envelope fields, required headers absent or disagreeing with the body, an unknown
 * method. Each gets the revision's defined error as a client error, and nothing is recorded.
 */
describe('MCP 2026-07-28: bad requests get the revision’s errors and create nothing (real PostgreSQL)', () => {
  let h: IntakeHarness;
  let mcp: McpTestServer;

  beforeAll(async () => {
    h = await startIntakeHarness();
    mcp = await serveMcp(h, { 'key-a': 'agent:a' });
  });
  afterAll(async () => {
    await mcp?.close();
    await h?.close();
  });

  async function post(
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; error: { code: number; message: string } }> {
    const response = await fetch(mcp.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer key-a',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const data = text.startsWith('{')
      ? JSON.parse(text)
      : JSON.parse(
          text
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6),
        );
    return { status: response.status, error: data.error };
  }

  const headersFor = (method: string, name?: string) => ({
    'mcp-protocol-version': REVISION,
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
  });
  const call = (meta: Record<string, unknown> = ENVELOPE, params: Record<string, unknown> = DEPLOY) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { ...params, _meta: meta },
  });

  const cases: [string, () => Promise<{ status: number; error: { code: number; message: string } }>, RegExp][] = [
    ['no envelope, but the 2026 header', () => post(call({}), headersFor('tools/call', 'create_deployment')), /envelope|protocolVersion/i],
    [
      'envelope without client info and capabilities',
      () => post(call({ 'io.modelcontextprotocol/protocolVersion': REVISION }), headersFor('tools/call', 'create_deployment')),
      /clientInfo|clientCapabilities|envelope/i,
    ],
    [
      'the header names 2025-11-25, the envelope 2026-07-28',
      () => post(call(), { ...headersFor('tools/call', 'create_deployment'), 'mcp-protocol-version': '2025-11-25' }),
      /version/i,
    ],
    ['Mcp-Method missing', () => post(call(), { 'mcp-protocol-version': REVISION, 'mcp-name': 'create_deployment' }), /Mcp-Method/i],
    ['Mcp-Method disagrees with the body', () => post(call(), headersFor('tools/list', 'create_deployment')), /Mcp-Method|mismatch/i],
    ['Mcp-Name disagrees with the body', () => post(call(), headersFor('tools/call', 'send_email')), /Mcp-Name|mismatch/i],
    ['Mcp-Name missing on tools/call', () => post(call(), headersFor('tools/call')), /Mcp-Name/i],
    [
      'an unknown method',
      () => post({ jsonrpc: '2.0', id: 1, method: 'tools/launch', params: { _meta: ENVELOPE } }, headersFor('tools/launch')),
      /not found|unknown|unsupported/i,
    ],
  ];

  it.each(cases)('%s → a client error naming it, nothing recorded', async (_label, send, message) => {
    const before = (await h.allEvents()).length;
    const { status, error } = await send();
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(error.code).toBeLessThan(-32000 + 1);
    expect(error.code).not.toBe(-32603);
    expect(error.message).toMatch(message);
    expect((await h.allEvents()).length).toBe(before);
  });

  it('the same call, well formed, is accepted (the cases above fail for what they name, not for something else)', async () => {
    const before = (await h.allEvents()).length;
    const response = await fetch(mcp.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer key-a',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headersFor('tools/call', 'create_deployment'),
      },
      body: JSON.stringify(call(ENVELOPE, { ...DEPLOY, _meta: undefined })),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('execution_id');
    expect((await h.allEvents()).length).toBeGreaterThan(before);
  });
});
