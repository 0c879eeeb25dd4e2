export { ComponentSchemas, type JsonSchema, type NamedSchema, inlineSchema, named } from './json-schema/component-schemas';
export { type Caller, type HttpMethod, type RouteDoc, SERVICES, type ServiceName } from './openapi/route-doc';
export { API_VERSION, type OpenApiDocument, ROUTE_DOCS, isServiceName, openApiDocument } from './openapi/build-openapi';
export { documentedRoutes } from './openapi/documented-routes';
export { type CatalogueEvent, type CatalogueVersion, type StreamKind, eventCatalogue } from './asyncapi/event-catalogue';
export { EVENT_PRODUCERS, producersOf } from './asyncapi/event-producers';
export { type AsyncApiDocument, type EventConsumerDoc, asyncApiDocument } from './asyncapi/build-asyncapi';
