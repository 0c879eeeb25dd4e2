import type { ServerResponse } from 'node:http';
import type { ServiceConfig } from '../ports/service-config';
import { OpenApiController } from './openapi.controller';

function served(serviceName: string): { status: number; headers: Record<string, string>; paths: string[] } {
  const config = { serviceName } as ServiceConfig;
  const answer = { status: 0, headers: {} as Record<string, string>, paths: [] as string[] };
  const res = {
    writeHead(status: number, headers: Record<string, string>) {
      Object.assign(answer, { status, headers });
      return { end: (body: string) => void (answer.paths = Object.keys((JSON.parse(body) as { paths: object }).paths)) };
    },
  } as unknown as ServerResponse;
  new OpenApiController(config).document(res);
  return answer;
}

describe('GET /openapi.json', () => {
  it("answers a service's own part of the document", () => {
    const answer = served('authorization');
    expect(answer.status).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/json');
    expect(answer.paths).toContain('/v1/admin/vault');
    expect(answer.paths).toContain('/openapi.json');
    expect(answer.paths).not.toContain('/v1/executions');
  });

  it('answers every route from the embedded start', () => {
    const paths = served('onceport').paths;
    expect(paths).toEqual(expect.arrayContaining(['/v1/executions', '/v1/admin/vault', '/v1/admin/reviews', '/healthz']));
  });
});
