import { join } from 'node:path';
import { type EventConsumerDoc, asyncApiDocument, openApiDocument } from '@onceport/api-docs';
import { consumersOf, controllersOf } from './route-table';
import { serviceModules } from './service-modules';

/** Where the committed documents live, from the repository root (README "API documents"). */
export const DOCUMENT_PATHS = { openapi: 'docs/api/openapi.json', asyncapi: 'docs/api/asyncapi.json' } as const;

export const REPO_ROOT = join(__dirname, '../../..');

/** The `@ConsumeEvents` handlers of every service, read from their modules. */
export function eventConsumers(): EventConsumerDoc[] {
  return serviceModules().flatMap(({ service, modules }) => consumersOf(service, controllersOf(modules)));
}

/**
 * Both documents as the committed files hold them: the whole OpenAPI document, and the AsyncAPI
 * catalogue with the consumers the code declares.
 *
 * @example writeFileSync(DOCUMENT_PATHS.openapi, generateDocuments().openapi)
 */
export function generateDocuments(): Record<keyof typeof DOCUMENT_PATHS, string> {
  return {
    openapi: `${JSON.stringify(openApiDocument(), null, 2)}\n`,
    asyncapi: `${JSON.stringify(asyncApiDocument(eventConsumers()), null, 2)}\n`,
  };
}
