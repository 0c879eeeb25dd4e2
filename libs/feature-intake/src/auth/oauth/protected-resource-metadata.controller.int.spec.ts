import type { AddressInfo } from 'node:net';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../../intake-dependencies';
import type { OAuthResourceServer } from './oauth-resource-server';
import { ProtectedResourceMetadataController } from './protected-resource-metadata.controller';
import { protectedResourceMetadata, resourceMetadataPaths, resourceMetadataUrl } from './protected-resource-metadata';

const SETTINGS = { issuer: 'https://auth.example.com', resource: 'https://onceport.example/mcp', requiredScopes: ['onceport'] };

/** Only what the controller reads: the metadata and where it is served. */
const oauth: OAuthResourceServer = {
  resource: SETTINGS.resource,
  metadataUrl: resourceMetadataUrl(SETTINGS.resource),
  metadataPaths: resourceMetadataPaths(SETTINGS.resource),
  metadata: () => protectedResourceMetadata(SETTINGS, ['create_deployment']),
  authenticate: () => Promise.reject(new Error('not used here')),
};

async function serve(deps: Partial<IntakeDependencies>): Promise<{ app: INestApplication; base: string }> {
  @Module({ controllers: [ProtectedResourceMetadataController], providers: [{ provide: INTAKE_DEPENDENCIES, useValue: deps }] })
  class MetadataModule {}
  const app = await NestFactory.create(MetadataModule, { logger: false, bodyParser: false });
  await app.listen(0, '127.0.0.1');
  return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

/** The routes as Nest (Express 5) matches them, on a real HTTP server. */
describe('GET /.well-known/oauth-protected-resource (real Nest HTTP server)', () => {
  it('with OAuth configured: the document at the path-suffixed (RFC 9728 §3.1) and the bare path, 404 elsewhere', async () => {
    const { app, base } = await serve({ oauth });
    try {
      for (const path of [
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp?x=1',
      ]) {
        const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(await response.json()).toEqual({
          resource: 'https://onceport.example/mcp',
          authorization_servers: ['https://auth.example.com'],
          scopes_supported: ['onceport', 'onceport:tool:create_deployment'],
          bearer_methods_supported: ['header'],
          resource_name: 'Onceport',
        });
      }
      const elsewhere = await fetch(`${base}/.well-known/oauth-protected-resource/other/mcp`, { signal: AbortSignal.timeout(5_000) });
      expect(elsewhere.status).toBe(404);
      expect(await elsewhere.json()).toMatchObject({
        detail: "this server's protected resource metadata is at https://onceport.example/.well-known/oauth-protected-resource/mcp",
      });
    } finally {
      await app.close();
    }
  });

  it('without OAuth (API keys only): 404 saying so', async () => {
    const { app, base } = await serve({});
    try {
      const response = await fetch(`${base}/.well-known/oauth-protected-resource`, { signal: AbortSignal.timeout(5_000) });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({
        code: 'not_found',
        detail: 'this server takes API keys only: its actors file has no oauth: section',
      });
    } finally {
      await app.close();
    }
  });
});
