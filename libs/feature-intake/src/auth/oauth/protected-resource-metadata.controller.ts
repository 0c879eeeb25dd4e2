import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { sendProblem } from '@onceport/service-kit';
import { INTAKE_DEPENDENCIES, type IntakeDependencies } from '../../intake-dependencies';
import type { OAuthResourceServer } from './oauth-resource-server';
import { PROTECTED_RESOURCE_WELL_KNOWN } from './protected-resource-metadata';

/**
 * RFC 9728 protected resource metadata, which MCP clients read to find the authorization server
 * (MCP 2026-07-28 authorization). Answered only when the actors file has an `oauth:` section.
 */
@Controller(PROTECTED_RESOURCE_WELL_KNOWN.slice(1))
export class ProtectedResourceMetadataController {
  constructor(@Inject(INTAKE_DEPENDENCIES) private readonly deps: IntakeDependencies) {}

  /** The bare well-known path and the one with the resource's path appended (RFC 9728 §3.1). */
  @Get(['', '*suffix'])
  serve(@Req() req: IncomingMessage, @Res() res: ServerResponse): void {
    answerProtectedResourceMetadata(this.deps.oauth ?? null, req, res);
  }
}

/** The metadata document, or 404 when OAuth is not configured or the path names another resource. */
export function answerProtectedResourceMetadata(oauth: OAuthResourceServer | null, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (!oauth || !oauth.metadataPaths.includes(path)) {
    const detail = oauth
      ? `this server's protected resource metadata is at ${oauth.metadataUrl}`
      : 'this server takes API keys only: its actors file has no oauth: section';
    return sendProblem(res, 404, 'not-found', 'No protected resource metadata here', detail);
  }
  res
    .writeHead(200, {
      'Content-Type': 'application/json',
      // Public by definition, and read by browser-based MCP clients from other origins.
      'Access-Control-Allow-Origin': '*',
      'Cache-Control': 'public, max-age=300',
    })
    .end(JSON.stringify(oauth.metadata()));
}
