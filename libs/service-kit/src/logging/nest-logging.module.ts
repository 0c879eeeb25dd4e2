import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Injectable, Module, RequestMethod } from '@nestjs/common';
import { Logger, LoggerModule } from 'nestjs-pino';
import { serviceLogger } from './service-logger';

/**
 * Nest's own messages through pino: its start-up chatter (`log`: modules loaded, routes mapped) at
 * debug, so `LOG_LEVEL=info` stays as quiet as before; warnings and errors as they are.
 *
 * @example app.useLogger(app.get(NestLogger));
 */
@Injectable()
export class NestLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    this.debug(message, ...optionalParams);
  }
}

/** A request as Nest's error lines carry it: id, method and path; never its headers or query. */
function requestFields(req: IncomingMessage & { id?: unknown }): Record<string, unknown> {
  return {
    id: req.id,
    method: req.method,
    path: String(req.url ?? '')
      .split('?')[0]
      ?.slice(0, 200),
  };
}

/** nestjs-pino for one service (or the embedded start): no access log, the process's pino logger underneath. */
@Module({})
export class ServiceLoggingModule {
  static forRoot(service: string): DynamicModule {
    return {
      module: ServiceLoggingModule,
      global: true,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: { logger: serviceLogger(service), autoLogging: false, serializers: { req: requestFields } },
          forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
        }),
      ],
      providers: [NestLogger],
      exports: [NestLogger],
    };
  }
}
