import { mcpContract, stdioUpstream } from './testing/mcp-contract';
import { upstreamDrift } from './upstream-drift';

const files = stdioUpstream('files', []);
const write = (properties: string[], required: string[] = []) => {
  const contract = mcpContract(files, 'write_file');
  return {
    ...contract,
    argumentsSchema: {
      ...contract.argumentsSchema,
      properties: Object.fromEntries(properties.map((p) => [p, { type: 'string' }])),
      required,
    },
  };
};

describe('upstreamDrift: contracts that no longer match their upstream, by name', () => {
  it('a matching tool is no drift (types and patterns are the operator’s to narrow)', () => {
    const offered = [
      { name: 'write_file', inputSchema: { properties: { path: { type: 'string', minLength: 1 }, content: {} }, required: ['path'] } },
    ];
    expect(upstreamDrift([write(['path', 'content'], ['path', 'content'])], offered)).toEqual([]);
  });

  it('a tool the upstream no longer lists', () => {
    expect(upstreamDrift([write(['path'])], [{ name: 'read_file' }])).toEqual([
      { contract: 'write_file', upstream: 'files', tool: 'write_file', problem: 'the upstream no longer lists a tool named "write_file"' },
    ]);
  });

  it('arguments added, removed, or newly required upstream are each named', () => {
    const offered = [{ name: 'write_file', inputSchema: { properties: { path: {}, mode: {} }, required: ['path', 'mode'] } }];
    expect(upstreamDrift([write(['path', 'content'], ['path'])], offered).map((d) => d.problem)).toEqual([
      'the upstream takes arguments the contract does not declare: mode',
      'the contract declares arguments the upstream no longer takes: content',
      'the upstream requires arguments the contract leaves optional: mode',
    ]);
  });
});
