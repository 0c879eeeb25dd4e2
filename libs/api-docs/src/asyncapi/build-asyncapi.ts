import { EventMetadata } from '@onceport/contracts';
import { z } from 'zod';
import { ComponentSchemas, type JsonSchema, named } from '../json-schema/component-schemas';
import { API_VERSION } from '../openapi/build-openapi';
import { type ServiceName } from '../openapi/route-doc';
import { type CatalogueEvent, type CatalogueVersion, eventCatalogue } from './event-catalogue';
import { producersOf } from './event-producers';

/** One `@ConsumeEvents` handler as the route table reads it: the service, its durable and the subjects it names. */
export interface EventConsumerDoc {
  readonly service: ServiceName;
  readonly durable: string;
  readonly subjects: readonly string[];
}

export type AsyncApiDocument = JsonSchema & { readonly asyncapi: string; readonly channels: Record<string, JsonSchema> };

const StreamPosition = named(
  'StreamPosition',
  z.object({
    id: z.string().describe('The stream the event was appended to (`execution-exe_…`).'),
    version: z.int().min(1),
    position: z.string().describe("The store's global position, as a decimal string."),
  }),
);

const NATS_HEADERS = {
  type: 'object',
  properties: {
    'Nats-Msg-Id': { type: 'string', description: 'The event id: JetStream stores a republished event once.' },
    'Onceport-Stream-Id': { type: 'string' },
    'Onceport-Stream-Version': { type: 'string' },
    traceparent: { type: 'string', description: 'W3C trace context, also in metadata.' },
    tracestate: { type: 'string' },
  },
};

/**
 * The AsyncAPI 3.0 document of the event catalogue: a channel per subject (every schema version of
 * every event), its message with the envelope and the data schema generated from the contracts'
 * zod schemas, who appends it (send) and which `@ConsumeEvents` handlers take it (receive).
 *
 * @example const document = asyncApiDocument(consumersFromTheFeatures);
 */
export function asyncApiDocument(consumers: readonly EventConsumerDoc[]): AsyncApiDocument {
  const catalogue = eventCatalogue();
  checkConsumedSubjects(catalogue, consumers);
  const schemas = new ComponentSchemas('#/components/schemas/', 'draft-7');
  const channels: Record<string, JsonSchema> = {};
  const messages: Record<string, JsonSchema> = {};
  const operations: Record<string, JsonSchema> = {};
  for (const event of catalogue) {
    for (const version of event.versions) {
      const id = `${event.type}_v${version.schemaVersion}`;
      messages[id] = messageOf(event, version, schemas);
      channels[id] = {
        address: version.subject,
        title: `${event.type} v${version.schemaVersion}`,
        description: channelDescription(event, version),
        servers: [{ $ref: event.relayed ? '#/servers/jetstream' : '#/servers/eventStore' }],
        messages: { [id]: { $ref: `#/components/messages/${id}` } },
      };
      const ref = { channel: { $ref: `#/channels/${id}` }, messages: [{ $ref: `#/channels/${id}/messages/${id}` }] };
      if (version.upcastTo === null)
        for (const service of producersOf(event.type))
          operations[`${service}_appends_${id}`] = { action: 'send', ...ref, summary: `${service} appends ${event.type}.` };
      for (const consumer of consumersOf(event, consumers))
        operations[`${consumer.service}_receives_${id}`] = {
          action: 'receive',
          ...ref,
          summary: `${consumer.service} takes ${event.type} (durable consumer \`${consumer.durable}\`).`,
          'x-onceport-durable': consumer.durable,
        };
    }
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Onceport event catalogue',
      version: API_VERSION,
      description:
        'Every event of the contracts registry (libs/contracts). Execution events a service acts on are relayed from the PostgreSQL store to JetStream (stream ONCEPORT_EXECUTION, subjects `onceport.execution.>`); consumers filter on every version of a type and upcast on read. Events of other streams, and the execution events no service acts on (DispatchStarted, RetryAttached, ResultDelivered), stay in the store; their subjects are reserved.',
    },
    defaultContentType: 'application/json',
    servers: {
      jetstream: {
        host: 'localhost:4222',
        protocol: 'nats',
        description: 'NATS JetStream (NATS_URL); the outbox relay publishes with `Nats-Msg-Id` = event id.',
      },
      eventStore: {
        host: 'localhost:5432',
        protocol: 'postgresql',
        description: 'The event store (DATABASE_URL): events appended and read there, not relayed.',
      },
    },
    channels,
    operations,
    components: { messages, schemas: schemas.all() },
  };
}

function messageOf(event: CatalogueEvent, version: CatalogueVersion, schemas: ComponentSchemas): JsonSchema {
  const data = schemas.ref(named(`${event.type}_v${version.schemaVersion}_Data`, version.data));
  const envelope: JsonSchema = {
    type: 'object',
    required: ['type', 'schemaVersion', 'data', 'metadata', ...(event.relayed ? ['stream'] : [])],
    properties: {
      type: { const: event.type },
      schemaVersion: { const: version.schemaVersion },
      data,
      metadata: schemas.ref(named('EventMetadata', EventMetadata)),
      ...(event.relayed ? { stream: schemas.ref(StreamPosition) } : {}),
    },
  };
  return {
    name: event.type,
    title: `${event.type} v${version.schemaVersion}`,
    contentType: 'application/json',
    ...(event.relayed ? { headers: NATS_HEADERS } : {}),
    correlationId: { description: 'Ties together everything one execution caused.', location: '$message.payload#/metadata/correlationId' },
    payload: envelope,
  };
}

function channelDescription(event: CatalogueEvent, version: CatalogueVersion): string {
  const where = event.relayed
    ? 'Relayed from the store to JetStream.'
    : event.stream === 'execution'
      ? 'Not relayed: no service acts on it as it arrives, so it stays in the PostgreSQL store and is read there; the subject is reserved.'
      : `Not relayed: appended to a ${event.stream} stream in PostgreSQL and read there; the subject is reserved.`;
  const current = event.versions[event.versions.length - 1]?.schemaVersion ?? version.schemaVersion;
  const upcast =
    version.upcastTo !== null
      ? ` Superseded: written by earlier releases, read from old streams and upcast to v${version.upcastTo} (then to v${current}) on read.`
      : event.versions.length > 1
        ? ` Current version; v${event.versions
            .map((v) => v.schemaVersion)
            .slice(0, -1)
            .join(', v')} events are upcast to it on read.`
        : '';
  return `${where}${upcast}`;
}

/** A consumer names the current subject and receives every version of the type (it filters on the wildcard). */
function consumersOf(event: CatalogueEvent, consumers: readonly EventConsumerDoc[]): readonly EventConsumerDoc[] {
  const subjects = new Set(event.versions.map((version) => version.subject));
  return consumers.filter((consumer) => consumer.subjects.some((subject) => subjects.has(subject)));
}

function checkConsumedSubjects(catalogue: readonly CatalogueEvent[], consumers: readonly EventConsumerDoc[]): void {
  const known = new Set(catalogue.filter((event) => event.relayed).flatMap((event) => event.versions.map((version) => version.subject)));
  for (const consumer of consumers)
    for (const subject of consumer.subjects)
      if (!known.has(subject))
        throw new Error(`api-docs: ${consumer.service} consumes ${subject}, which no relayed event of the catalogue has`);
}
