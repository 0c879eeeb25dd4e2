import { ComponentSchemas, type JsonSchema, inlineSchema } from '../json-schema/component-schemas';
import { type Caller, type ResponseDoc, type RouteDoc, SERVICES, type ServiceName } from './route-doc';
import { adminRoutes } from './routes/admin-routes';
import { executionRoutes } from './routes/execution-routes';
import { runRoutes } from './routes/run-routes';
import { serviceRoutes } from './routes/service-routes';
import { traceRoutes } from './routes/trace-routes';
import { ProblemDetails } from './schemas/service-schemas';

/** Every route of every service, as documented. */
export const ROUTE_DOCS: readonly RouteDoc[] = [...executionRoutes, ...runRoutes, ...adminRoutes, ...traceRoutes, ...serviceRoutes];

/** The `info.version` of the documents: the HTTP API's, not a build's. */
export const API_VERSION = '0.1.0';

const DEFAULT_PORTS: Record<ServiceName, number> = { intake: 3001, authorization: 3002, dispatcher: 3003, reconciler: 3004 };

const SECURITY: Record<Caller, Record<string, never[]>[]> = {
  none: [],
  agent: [{ agentKey: [] }],
  admin: [{ adminKey: [] }],
  agent_or_admin: [{ agentKey: [] }, { adminKey: [] }],
};

export type OpenApiDocument = JsonSchema & { readonly openapi: string; readonly paths: Record<string, Record<string, unknown>> };

/** Is `name` one of the four services (the embedded start calls itself `onceport` and serves them all)? */
export function isServiceName(name: string): name is ServiceName {
  return (SERVICES as readonly string[]).includes(name);
}

/**
 * The OpenAPI 3.1 document of the REST and admin APIs: every service's routes, or only those one
 * service serves (what its `/openapi.json` answers). Built from the project's zod schemas, so a
 * changed contract changes it.
 *
 * @example const document = openApiDocument('authorization');
 */
export function openApiDocument(service?: ServiceName): OpenApiDocument {
  const routes = ROUTE_DOCS.filter((route) => service === undefined || route.services.includes(service));
  const schemas = new ComponentSchemas('#/components/schemas/');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    if (route.anyMethod) item['x-onceport-any-method'] = true;
    item[route.method] = operationOf(route, schemas);
  }
  const tags = [...new Set(routes.map((route) => route.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.1',
    info: {
      title: service ? `Onceport ${service}` : 'Onceport',
      version: API_VERSION,
      summary: 'Execution-identity gateway for AI-agent tool calls: the REST and admin APIs.',
      description:
        'Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`. Which service serves an operation is in `x-onceport-services`; `npm start` serves all of them on one port.',
    },
    servers: (service ? [service] : SERVICES).map((name) => ({
      url: `http://127.0.0.1:${DEFAULT_PORTS[name]}`,
      description: `${name}, on its default port`,
    })),
    tags,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        agentKey: {
          type: 'http',
          scheme: 'bearer',
          description: "An actor's API key, or an OAuth access token where the actors file has `oauth:`.",
        },
        adminKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An admin key (`admins:` of the actors file), or where the actors file has `oauth:` an operator's access token: a JWT of its issuer with `aud` = `oauth.admin_audience`, the `onceport:admin` scope and an `oauth.admin_claim` an admin lists in `oauth_subjects`. An agent key is not one.",
        },
      },
      schemas: schemas.all(),
    },
  };
}

function operationOf(route: RouteDoc, schemas: ComponentSchemas): Record<string, unknown> {
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    'x-onceport-services': [...route.services],
    security: SECURITY[route.caller],
    ...(route.parameters?.length
      ? {
          parameters: route.parameters.map((parameter) => ({
            name: parameter.name,
            in: parameter.in,
            description: parameter.description,
            required: parameter.required ?? parameter.in === 'path',
            schema: inlineSchema(parameter.schema),
          })),
        }
      : {}),
    ...(route.body
      ? {
          requestBody: {
            description: route.body.description,
            required: route.body.required,
            content: { 'application/json': { schema: schemas.ref(route.body.schema) } },
          },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(route.responses).map(([status, response]) => [status, responseOf(response, schemas)])),
  };
}

function responseOf(response: ResponseDoc, schemas: ComponentSchemas): Record<string, unknown> {
  const headers = Object.entries(response.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: 'string' } }]);
  const content =
    response.body === undefined
      ? undefined
      : response.body === 'problem'
        ? { 'application/problem+json': { schema: schemas.ref(ProblemDetails) } }
        : response.body === 'text'
          ? { 'text/plain': { schema: { type: 'string' } } }
          : { 'application/json': { schema: schemas.ref(response.body) } };
  return {
    description: response.description,
    ...(headers.length > 0 ? { headers: Object.fromEntries(headers) } : {}),
    ...(content ? { content } : {}),
  };
}
