import { ConsoleRefusal } from './console-http';
import { listQuery } from './runs.controller';

describe("the runs list's query, as the console passes it on to intake", () => {
  it('passes the known parameters on, encoded, and drops empty ones', () => {
    expect(listQuery({})).toBe('');
    expect(listQuery({ trigger: 'ticket:FIN-77', actor: '', limit: '50', cursor: 'run_01' })).toBe(
      '?trigger=ticket%3AFIN-77&limit=50&cursor=run_01',
    );
  });

  it.each([
    ['an unknown parameter', { colour: 'blue' }],
    ['a repeated parameter (an array)', { actor: ['a', 'b'] }],
    ['a value past 200 characters', { trigger: 'x'.repeat(201) }],
  ])('refuses %s with a 400 problem before asking intake', (_what, query) => {
    expect(() => listQuery(query)).toThrow(ConsoleRefusal);
    try {
      listQuery(query);
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: 'invalid_query' });
    }
  });
});
