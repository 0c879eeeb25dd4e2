import { ormConnectionOf } from './orm-connection';

describe('ormConnectionOf', () => {
  const config = { serviceName: 'intake', databaseUrl: 'postgres://db/onceport', delivery: 'jetstream', natsUrl: 'nats://n' } as const;

  it("takes its share of the process's pool size, named after the service", () => {
    expect(ormConnectionOf({ ...config, poolSize: 20 }, 1 / 2)).toEqual({
      databaseUrl: 'postgres://db/onceport',
      poolSize: 10,
      applicationName: 'onceport-intake-orm',
    });
    expect(ormConnectionOf({ ...config, poolSize: 8 }, 1 / 4).poolSize).toBe(2);
    expect(ormConnectionOf({ ...config, poolSize: 9 }, 1 / 4).poolSize).toBe(3);
  });

  it('keeps two connections at least, and the default pool size when none is given', () => {
    expect(ormConnectionOf({ ...config, poolSize: 1 }, 1 / 4).poolSize).toBe(2);
    expect(ormConnectionOf(config, 1 / 2).poolSize).toBe(4);
  });

  it("names npm start's one process without repeating the product's name", () => {
    expect(ormConnectionOf({ ...config, serviceName: 'onceport' }, 1 / 2).applicationName).toBe('onceport-orm');
  });
});
