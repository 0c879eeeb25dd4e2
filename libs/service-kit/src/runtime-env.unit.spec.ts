import { loadEnvConfig } from '@onceport/config';
import { z } from 'zod';
import { migrationEnvShape, runtimeEnvShape } from './runtime-env';

describe('migration environment', () => {
  const schema = z.object(migrationEnvShape);

  it('without ONCEPORT_MIGRATION_DATABASE_URL, the owner is DATABASE_URL (no default stands in for it)', () => {
    const env = loadEnvConfig(schema, { DATABASE_URL: 'postgres://owner@db:5432/mine' });
    expect(env.ONCEPORT_MIGRATION_DATABASE_URL).toBeUndefined();
    expect(env.ONCEPORT_MIGRATION_DATABASE_URL ?? env.DATABASE_URL).toBe('postgres://owner@db:5432/mine');
  });

  it('takes the owner URL and the service role when given, and refuses a bad one by name', () => {
    const env = loadEnvConfig(schema, {
      DATABASE_URL: 'postgres://svc@db/x',
      ONCEPORT_MIGRATION_DATABASE_URL: 'postgres://owner@db/x',
      ONCEPORT_DATABASE_SERVICE_ROLE: 'onceport_service',
    });
    expect(env).toMatchObject({
      ONCEPORT_MIGRATION_DATABASE_URL: 'postgres://owner@db/x',
      ONCEPORT_DATABASE_SERVICE_ROLE: 'onceport_service',
    });
    expect(() => loadEnvConfig(schema, { ONCEPORT_MIGRATION_DATABASE_URL: 'mysql://x' })).toThrow(/ONCEPORT_MIGRATION_DATABASE_URL/);
  });
});

describe('runtime environment: the pool budget', () => {
  const schema = z.object({ ONCEPORT_PG_POOL_MAX: runtimeEnvShape.ONCEPORT_PG_POOL_MAX });

  it('is 8 connections unless ONCEPORT_PG_POOL_MAX says otherwise', () => {
    expect(loadEnvConfig(schema, {}).ONCEPORT_PG_POOL_MAX).toBe(8);
    expect(loadEnvConfig(schema, { ONCEPORT_PG_POOL_MAX: '20' }).ONCEPORT_PG_POOL_MAX).toBe(20);
  });

  it('refuses, by name, fewer than a service works with, more than 1000, or no whole number', () => {
    for (const bad of ['7', '1001', '12.5', 'lots'])
      expect(() => loadEnvConfig(schema, { ONCEPORT_PG_POOL_MAX: bad })).toThrow(/ONCEPORT_PG_POOL_MAX/);
  });
});
