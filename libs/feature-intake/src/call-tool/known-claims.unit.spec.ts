import { KnownClaims } from './known-claims';

describe('KnownClaims', () => {
  it('remembers claim streams up to its capacity, forgetting the least recently seen first', () => {
    const known = new KnownClaims(2);
    known.add('intent-a');
    known.add('intent-b');
    known.add('intent-a'); // seen again: now the most recent
    known.add('intent-c');
    expect(['intent-a', 'intent-b', 'intent-c'].map((id) => known.has(id))).toEqual([true, false, true]);
  });
});
