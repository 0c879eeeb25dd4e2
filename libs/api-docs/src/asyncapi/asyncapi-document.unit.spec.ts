import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { executionEventDefinitions } from '@onceport/contracts';
import { DocumentSchemas, resolvePointer, unresolvedRefs } from '../testing';
import { asyncApiDocument } from './build-asyncapi';
import { eventCatalogue } from './event-catalogue';

const HISTORIES = join(__dirname, '../../../contracts/test/fixtures/histories');
const consumers = [
  { service: 'authorization' as const, durable: 'authorization', subjects: [executionEventDefinitions.ExecutionAccepted.subject] },
];
const document = asyncApiDocument(consumers);
type Channel = { address: string; messages: Record<string, { $ref: string }> };
type Operation = { action: string; channel: { $ref: string }; messages: { $ref: string }[] };

describe('the AsyncAPI document', () => {
  it('is AsyncAPI 3.0 with a channel per subject of every event version', () => {
    expect(document.asyncapi).toBe('3.0.0');
    const addresses = Object.values(document.channels as Record<string, Channel>).map((channel) => channel.address);
    expect(addresses).toContain('onceport.execution.execution-accepted.v1');
    expect(addresses).toContain('onceport.execution.execution-accepted.v2');
    expect(addresses).toContain('onceport.vault.vault-locked.v1');
    expect(new Set(addresses).size).toBe(eventCatalogue().reduce((sum, event) => sum + event.versions.length, 0));
  });

  it('notes upcasting on superseded versions', () => {
    const v1 = (document.channels as Record<string, { description: string }>)['ExecutionAccepted_v1'];
    expect(v1?.description).toMatch(/upcast to v2/);
  });

  it('says who appends and who consumes, on every version a consumer receives', () => {
    const operations = document['operations'] as Record<string, Operation>;
    expect(operations['intake_appends_ExecutionAccepted_v2']?.action).toBe('send');
    expect(operations['intake_appends_ExecutionAccepted_v1']).toBeUndefined();
    expect(operations['authorization_receives_ExecutionAccepted_v1']?.action).toBe('receive');
    expect(operations['authorization_receives_ExecutionAccepted_v2']?.action).toBe('receive');
    for (const operation of Object.values(operations)) {
      expect(resolvePointer(document, operation.channel.$ref)).toBeDefined();
      for (const message of operation.messages) expect(resolvePointer(document, message.$ref)).toBeDefined();
    }
  });

  it('refuses a consumer of a subject no relayed event has', () => {
    expect(() => asyncApiDocument([{ service: 'reconciler', durable: 'r', subjects: ['onceport.vault.vault-locked.v1'] }])).toThrow(
      /vault-locked/,
    );
  });

  it('resolves every $ref, and ajv compiles every schema (draft-07)', () => {
    expect(unresolvedRefs(document)).toEqual([]);
    const schemas = new DocumentSchemas(document, 'draft-07');
    for (const name of Object.keys((document['components'] as { schemas: object }).schemas))
      expect(() => schemas.validator(`#/components/schemas/${name}`)).not.toThrow();
  });

  it('describes the recorded histories: every fixture event is valid against its message payload', () => {
    const schemas = new DocumentSchemas(document, 'draft-07');
    const files = readdirSync(HISTORIES).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    const broken = { type: 'VaultLocked', schemaVersion: 1, data: { by: '', reason: 'x', lockedAt: 'yesterday' }, metadata: {} };
    expect(schemas.errors('#/components/messages/VaultLocked_v1/payload', broken).length).toBeGreaterThan(2);
    for (const file of files) {
      const events = JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')) as { type: string; schemaVersion: number }[];
      for (const [i, event] of events.entries()) {
        const wire = { ...event, stream: { id: 'execution-x', version: i + 1, position: String(i + 1) } };
        const pointer = `#/components/messages/${event.type}_v${event.schemaVersion}/payload`;
        expect([file, i, schemas.errors(pointer, wire)]).toEqual([file, i, []]);
      }
    }
  });
});
