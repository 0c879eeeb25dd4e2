import { createHash } from 'node:crypto';
import { executionStreamId } from '@onceport/contracts';
import { parseToolContracts } from '@onceport/domain';
import { type IntakeHarness, startIntakeHarness } from '../testing/intake-harness';
import type { CallToolService } from './call-tool.service';
import { InvalidArgumentsError } from './call-tool.errors';

// An import API that dedupes nothing itself: the file's digest is what makes a repeat one intent.
const IMPORT_FILE = `
tools:
  - name: import_file
    description: Import a document into a folder.
    channel: http
    target: { origin: https://docs.example.com, method: POST, path: /v1/imports, idempotency_header: Idempotency-Key }
    arguments:
      type: object
      properties:
        folder: { type: string }
        file_name: { type: string }
        content: { type: string, contentEncoding: base64 }
        content_sha256: { type: string }
      required: [folder, content]
    roles:
      folder: identity
      file_name: generated
      content: { role: derived, derive: sha256 }
      content_sha256: { role: derived, derive: sha256, from: content }
    effect: idempotent
    ledger_retention: 30d
`;

/** Issue 16: a derived argument is what the gateway computed, at intake, against a real store. */
describe('derived arguments at intake (real PostgreSQL)', () => {
  let h: IntakeHarness;
  let callTool: CallToolService;
  const pdf = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');
  const digestOf = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const importing = (bytes: Buffer, extra: Record<string, unknown> = {}) =>
    h.request({
      tool: 'import_file',
      arguments: { folder: 'contracts', file_name: 'nda.pdf', content: bytes.toString('base64'), ...extra },
    });

  beforeAll(async () => {
    h = await startIntakeHarness();
    const [importFile] = parseToolContracts(IMPORT_FILE, 'import.yaml');
    if (!importFile) throw new Error('no import_file contract');
    callTool = h.callToolService({ ...h.deps, contracts: new Map([...h.deps.contracts, ['import_file', importFile]]) }, h.watcher);
  });
  afterAll(() => h?.close());
  afterEach(() => expect(h.watcherErrors).toEqual([]));

  it('records the digest the gateway computed, and keeps the file as sent for the target', async () => {
    const { answer } = await callTool.call(importing(pdf, { content_sha256: digestOf(pdf).slice('sha256:'.length).toUpperCase() }));
    const [accepted] = await h.ports.store.readStream(executionStreamId(answer.execution_id));
    expect(accepted?.data['record']).toMatchObject({
      arguments: { folder: 'contracts', content: digestOf(pdf), content_sha256: digestOf(pdf) },
    });
    expect(JSON.stringify(accepted?.data['record'])).not.toContain(pdf.toString('base64'));
    // What the dispatcher renders the request from: the raw arguments, the agent's own spelling included.
    expect(accepted?.data['arguments']).toEqual({
      folder: 'contracts',
      file_name: 'nda.pdf',
      content: pdf.toString('base64'),
      content_sha256: digestOf(pdf).slice('sha256:'.length).toUpperCase(),
    });
  });

  it('the same file imported twice is one execution: a retry attaches, and once done and delivered it is a ledger hit', async () => {
    const file = Buffer.concat([pdf, Buffer.from('% twice\n')]);
    const first = await callTool.call(importing(file));
    const retry = await callTool.call(importing(file, { file_name: 'nda (1).pdf' }));
    expect(retry).toMatchObject({ created: false, answer: { execution_id: first.answer.execution_id, attached: true } });

    await h.complete(first.answer.execution_id, { status: 201, body: { import_id: 'imp_1' } });
    const finished = await callTool.awaitAnswerable(first.answer.execution_id, 0);
    await h.delivery.delivered({ ...first.answer, state: finished.status, replay: false }, 'mcp', h.request().correlation);
    const again = await callTool.call(importing(file));
    expect(again).toMatchObject({
      created: false,
      answer: { execution_id: first.answer.execution_id, state: 'completed', replay: true, result: { body: { import_id: 'imp_1' } } },
    });
  });

  it('one byte changed is a new execution', async () => {
    const file = Buffer.concat([pdf, Buffer.from('% one byte\n')]);
    const changed = Buffer.from(file);
    changed[10] = (changed[10] ?? 0) ^ 0x01;
    const first = await callTool.call(importing(file));
    const other = await callTool.call(importing(changed));
    expect(other.created).toBe(true);
    expect(other.answer.execution_id).not.toBe(first.answer.execution_id);
  });

  it('refuses a digest the agent claims that is not the file’s, and appends nothing', async () => {
    const before = (await h.allEvents()).length;
    const lie = Promise.resolve().then(() => callTool.call(importing(pdf, { content_sha256: '0'.repeat(64) })));
    await expect(lie).rejects.toBeInstanceOf(InvalidArgumentsError);
    await expect(lie).rejects.toMatchObject({ issues: [{ path: '$.content_sha256', keyword: 'derived' }] });
    expect((await h.allEvents()).length).toBe(before);
  });
});
