import { DocumentSchemas, unresolvedRefs } from '../testing';
import { openApiDocument } from './build-openapi';
import { documentedRoutes } from './documented-routes';
import { SERVICES } from './route-doc';

type Operation = { operationId: string; responses: Record<string, unknown>; parameters?: { name: string; in: string }[] };

const document = openApiDocument();
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([key]) => !key.startsWith('x-'))
    .map(([method, operation]) => ({ path, method, operation: operation as Operation })),
);

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with an info block', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document['info']).toEqual(expect.objectContaining({ title: 'Onceport', version: expect.any(String) }));
  });

  it('gives every operation a unique id and a success response', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, operation } of operations)
      expect([path, method, Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status))]).toEqual([path, method, true]);
  });

  it('declares exactly the path parameters its templates name', () => {
    for (const { path, operation } of operations) {
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      const declared = (operation.parameters ?? [])
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort();
      expect([path, declared]).toEqual([path, templated]);
    }
  });

  it('resolves every $ref', () => {
    expect(unresolvedRefs(document)).toEqual([]);
  });

  it('has schemas ajv compiles (JSON Schema 2020-12), and a problem answer validates', () => {
    const schemas = new DocumentSchemas(document, '2020-12');
    const components = (document['components'] as { schemas: Record<string, unknown> }).schemas;
    for (const name of Object.keys(components)) expect(() => schemas.validator(`#/components/schemas/${name}`)).not.toThrow();
    const problem = {
      type: 'https://onceport.dev/problems/run-not-found',
      title: 'Run not found',
      status: 404,
      detail: 'no run x',
      code: 'run_not_found',
    };
    expect(schemas.errors('#/components/schemas/ProblemDetails', problem)).toEqual([]);
    expect(
      schemas.errors('#/components/schemas/ExecutionRequest', { tool: 'send_email', arguments: { to: 'a' }, surprise: 1 }),
    ).not.toEqual([]);
  });

  it("serves each service's part: its own routes and the kit's, nothing of another service", () => {
    const all = documentedRoutes(document);
    const union = new Set(SERVICES.flatMap((service) => documentedRoutes(openApiDocument(service))));
    expect([...union].sort()).toEqual(all);
    expect(documentedRoutes(openApiDocument('dispatcher'))).toEqual(['GET /healthz', 'GET /metrics', 'GET /openapi.json', 'GET /readyz']);
    expect(documentedRoutes(openApiDocument('reconciler'))).toContain('GET /v1/admin/reviews');
    expect(documentedRoutes(openApiDocument('intake'))).not.toContain('GET /v1/admin/reviews');
  });
});
