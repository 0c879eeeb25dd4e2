import { parseTemplate } from './template';

describe('parseTemplate', () => {
  it('splits literals and placeholders, whole or inside an element', () => {
    expect(parseTemplate('/v1/{project}/deploy/{env}')).toEqual({
      parts: [{ literal: '/v1/' }, { argument: 'project' }, { literal: '/deploy/' }, { argument: 'env' }],
      placeholders: ['project', 'env'],
      errors: [],
    });
    expect(parseTemplate('--to={version}').parts).toEqual([{ literal: '--to=' }, { argument: 'version' }]);
  });

  it('reads {{ and }} as literal braces', () => {
    expect(parseTemplate('{{print $1}}')).toEqual({ parts: [{ literal: '{print $1}' }], placeholders: [], errors: [] });
  });

  it('reports unclosed, stray and malformed braces', () => {
    expect(parseTemplate('/a/{b').errors).toEqual(['an unclosed "{" at position 3']);
    expect(parseTemplate('/a/}').errors).toEqual(['a stray "}" at position 3 (write }} for a literal brace)']);
    expect(parseTemplate('{1x}').errors[0]).toContain('"{1x}" is not a placeholder');
  });
});
