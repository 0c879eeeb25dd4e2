import { type OpenApiDocument } from './build-openapi';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The routes a document claims, as `GET /v1/runs/{id}`: what the drift test holds against the
 * routes Nest registers. A path marked `x-onceport-any-method` (the code's `@All()`) is one `ALL` route.
 *
 * @example expect(documentedRoutes(openApiDocument('intake'))).toEqual(routesNestRegisters)
 */
export function documentedRoutes(document: OpenApiDocument): string[] {
  const routes = Object.entries(document.paths).flatMap(([path, item]) =>
    item['x-onceport-any-method'] === true
      ? [`ALL ${path}`]
      : METHODS.filter((method) => method in item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  return routes.sort();
}
