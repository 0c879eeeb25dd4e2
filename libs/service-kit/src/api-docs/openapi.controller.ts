import type { ServerResponse } from 'node:http';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { isServiceName, openApiDocument } from '@onceport/api-docs';
import type { ServiceConfig } from '../ports/service-config';
import { SERVICE_CONFIG } from '../ports/tokens';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of the routes this process serves — one service's
 * part (a client pointed at the authorization service sees what it can call there), or every route
 * from the embedded start. Unauthenticated like /healthz: it describes, it holds no data.
 */
@Controller()
export class OpenApiController {
  private readonly body: string;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    const service = isServiceName(config.serviceName) ? config.serviceName : undefined;
    this.body = JSON.stringify(openApiDocument(service));
  }

  @Get('openapi.json')
  document(@Res() res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' }).end(this.body);
  }
}
