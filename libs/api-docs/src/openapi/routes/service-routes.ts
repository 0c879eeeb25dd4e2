import { Health, OpenApiDocument, Readiness } from '../schemas/service-schemas';
import { type RouteDoc, SERVICES } from '../route-doc';

/** What the service kit gives every service: health, metrics, and this document. */
export const serviceRoutes: readonly RouteDoc[] = [
  {
    method: 'get',
    path: '/healthz',
    services: SERVICES,
    tag: 'Operations',
    operationId: 'liveness',
    summary: 'Liveness: the process answers (no checks)',
    caller: 'none',
    responses: { '200': { description: 'Alive.', body: Health } },
  },
  {
    method: 'get',
    path: '/readyz',
    services: SERVICES,
    tag: 'Operations',
    operationId: 'readiness',
    summary: 'Readiness: PostgreSQL and the event delivery reachable',
    caller: 'none',
    responses: {
      '200': { description: 'Ready.', body: Readiness },
      '503': { description: 'Not ready: takes the replica out of rotation; `checks` says why.', body: Readiness },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    services: SERVICES,
    tag: 'Operations',
    operationId: 'metrics',
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Counts by code-constant labels, never ids or payloads.',
    caller: 'none',
    responses: { '200': { description: 'The metrics.', body: 'text' } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    services: SERVICES,
    tag: 'Operations',
    operationId: 'openApiDocument',
    summary: 'This document: the routes the answering service serves (all of them from `npm start`)',
    caller: 'none',
    responses: { '200': { description: 'OpenAPI 3.1.', body: OpenApiDocument } },
  },
];
