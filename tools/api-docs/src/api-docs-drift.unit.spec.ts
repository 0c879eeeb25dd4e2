import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, type Type } from '@nestjs/common';
import { documentedRoutes, openApiDocument } from '@onceport/api-docs';
import { DOCUMENT_PATHS, REPO_ROOT, eventConsumers, generateDocuments } from './generate-documents';
import { controllersOf, routesOf } from './route-table';
import { serviceModules } from './service-modules';

const REGENERATE = 'run `npm run docs:api` and commit docs/api';

describe('the API documents against the code', () => {
  const services = serviceModules();

  it.each(services.map(({ service, modules }) => [service, modules] as const))(
    'document exactly the routes Nest registers for %s, and that service serves them',
    (service, modules) => {
      const registered = routesOf(controllersOf(modules));
      const documented = documentedRoutes(openApiDocument(service));
      expect({ inCodeNotDocumented: minus(registered, documented), documentedNotInCode: minus(documented, registered) }).toEqual({
        inCodeNotDocumented: [],
        documentedNotInCode: [],
      });
    },
  );

  it('reads routes as Nest registers them: a new controller route is caught', () => {
    @Controller('v1/admin/surprise')
    class SurpriseController {
      @Get(':id')
      one(): string {
        return 'surprise';
      }
    }
    const intake = services.find(({ service }) => service === 'intake');
    const routes = routesOf(
      controllersOf([...(intake?.modules ?? []), { module: class Extra {}, controllers: [SurpriseController as Type] }]),
    );
    expect(minus(routes, documentedRoutes(openApiDocument('intake')))).toEqual(['GET /v1/admin/surprise/{id}']);
    expect(routes).toEqual(expect.arrayContaining(['ALL /mcp', 'GET /.well-known/oauth-protected-resource/{suffix}', 'GET /openapi.json']));
  });

  it('finds every @ConsumeEvents handler', () => {
    expect(
      eventConsumers()
        .map((consumer) => consumer.durable)
        .sort(),
    ).toEqual(['authorization', 'dispatcher', 'reconciler']);
  });

  it.each(Object.entries(DOCUMENT_PATHS))(`commits the %s document as generated now (else ${REGENERATE})`, (kind, path) => {
    const committed = readFileSync(join(REPO_ROOT, path), 'utf8');
    const generated = generateDocuments()[kind as keyof typeof DOCUMENT_PATHS];
    if (committed !== generated) throw new Error(`${path} differs from what the code generates: ${REGENERATE}`);
  });
});

function minus(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return a.filter((item) => !other.has(item));
}
