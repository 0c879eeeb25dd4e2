import type { AddressInfo } from 'node:net';
import { type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HealthModule } from './health.module';

function failUnless(up: boolean, why: string): void {
  if (!up) throw new Error(why);
}

/** /healthz and /readyz on a real Nest HTTP server, with readiness checks that can be made to fail. */
describe('HealthModule (terminus, real Nest HTTP server)', () => {
  const state = { database: true, delivery: true };
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const health = HealthModule.forRoot({
      useFactory: () => [
        { name: 'database', probe: async () => failUnless(state.database, 'unavailable: connection refused') },
        { name: 'delivery', probe: async () => failUnless(state.delivery, 'disconnected') },
      ],
    });
    app = await NestFactory.create(health, { logger: false });
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(async () => app?.close());

  async function get(path: string): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${url}${path}`);
    return { status: response.status, body: await response.json() };
  }

  it('ready: 200 with every check ok', async () => {
    expect(await get('/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ok', checks: { database: 'ok', delivery: 'ok' }, details: { database: { status: 'up' } } },
    });
  });

  it('not ready while the database or delivery is down: 503 saying which and why; liveness stays 200', async () => {
    state.database = false;
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: { status: 'error', checks: { database: 'unavailable: connection refused', delivery: 'ok' } },
    });
    state.database = true;
    state.delivery = false;
    expect(await get('/readyz')).toMatchObject({ status: 503, body: { checks: { database: 'ok', delivery: 'disconnected' } } });
    expect(await get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    state.delivery = true;
    expect((await get('/readyz')).status).toBe(200);
  });
});
