import { ActorDirectory } from './actor-directory';
import { BUILT_IN_ACTOR_LIMITS } from './actor-limits';
import { ActorsFileError } from './actors-file-error';
import { hashApiKey } from './api-key';
import { parseActorsFile } from './parse-actors-file';

const DEPLOY_KEY = 'op_deploy-key-1';
const ALICE_KEY = 'op_alice-key-1';

const valid = `
actors:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey(DEPLOY_KEY)}, ${hashApiKey('op_deploy-key-2').toUpperCase()}]
    tools: [create_deployment, get_build_status]
    session_grant: automatic
  - id: agent:report-bot
    api_keys_sha256: [${hashApiKey('op_report')}]
    tools: "*"
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey(ALICE_KEY)}]
`;

function problems(text: string): ActorsFileError {
  try {
    parseActorsFile(text, 'actors.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ActorsFileError);
    return error as ActorsFileError;
  }
  throw new Error('expected an ActorsFileError');
}

describe('parseActorsFile', () => {
  it('turns the YAML into typed actors and admins, hashes lower-cased, session grant defaulting to human', () => {
    const file = parseActorsFile(valid, 'actors.yaml');
    expect(file.actors).toEqual([
      {
        id: 'agent:deploy-bot',
        apiKeysSha256: [hashApiKey(DEPLOY_KEY), hashApiKey('op_deploy-key-2')],
        tools: ['create_deployment', 'get_build_status'],
        sessionGrant: 'automatic',
      },
      { id: 'agent:report-bot', apiKeysSha256: [hashApiKey('op_report')], tools: '*', sessionGrant: 'human' },
    ]);
    expect(file.admins).toEqual([{ id: 'ops:alice', apiKeysSha256: [hashApiKey(ALICE_KEY)] }]);
  });

  it('versions the policy by the file content: same bytes, same version; any change, a new one', () => {
    const version = parseActorsFile(valid, 'a.yaml').policyVersion;
    expect(version).toMatch(/^[0-9a-f]{12}$/);
    expect(parseActorsFile(valid, 'b.yaml').policyVersion).toBe(version);
    expect(parseActorsFile(`${valid}\n# reviewed\n`, 'a.yaml').policyVersion).not.toBe(version);
  });

  it('allows an empty admins list and an actor allowed no tools', () => {
    const file = parseActorsFile(`actors:\n  - id: agent:idle\n    api_keys_sha256: [${hashApiKey('k')}]\n    tools: []\n`, 'a.yaml');
    expect(file.actors[0]?.tools).toEqual([]);
    expect(file.admins).toEqual([]);
  });

  it('names file, path, what was found and what is expected, with the line, for every problem at once', () => {
    const error = problems(`
actors:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey(DEPLOY_KEY)}]
    tools: all
    session_grant: sometimes
    tool: [x]
`);
    expect(error.issues.map((issue) => [issue.code, issue.path, issue.line])).toEqual([
      ['invalid_field', 'actors[0].tools', 5],
      ['invalid_field', 'actors[0].session_grant', 6],
      ['unknown_field', 'actors[0].tool', 7],
    ]);
    expect(error.message).toContain(
      'actors.yaml: actors[0].tools: got "all"; expected a list of tool names (possibly empty), or "*" for every tool (line 5)',
    );
    expect(error.message).toContain('actors.yaml: actors[0].session_grant: got "sometimes"; expected automatic | human');
    expect(error.message).toContain('expected one of the known fields id | api_keys_sha256 | tools | session_grant | limits');
  });

  it('never echoes what was put where a key hash belongs: it may be the plain key', () => {
    const error = problems(`actors:\n  - id: agent:x\n    api_keys_sha256: [${DEPLOY_KEY}]\n    tools: []\n`);
    expect(error.issues[0]?.path).toBe('actors[0].api_keys_sha256[0]');
    expect(error.message).toContain('not shown: it may be a plain key');
    expect(error.message).toContain('expected the SHA-256 of an API key as 64 hex characters');
    expect(error.message).not.toContain(DEPLOY_KEY);
  });

  it('refuses an id declared twice, across actors and admins', () => {
    const error = problems(`${valid}  - id: agent:deploy-bot\n    api_keys_sha256: [${hashApiKey('other')}]\n`);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ code: 'duplicate_id', path: 'admins[1].id' });
    expect(error.message).toContain('already declared at actors[0]');
  });

  it('refuses a key hash used by two principals, in any letter case', () => {
    const error = problems(`${valid}  - id: ops:bob\n    api_keys_sha256: [${hashApiKey(DEPLOY_KEY).toUpperCase()}]\n`);
    expect(error.issues).toEqual([
      expect.objectContaining({
        code: 'duplicate_key',
        path: 'admins[1].api_keys_sha256[0]',
        found: 'a key hash already listed at actors[0].api_keys_sha256[0] (agent:deploy-bot)',
      }),
    ]);
  });

  it('refuses a principal without keys, a missing actors list, an empty file and YAML syntax errors', () => {
    expect(problems(`actors:\n  - id: agent:x\n    api_keys_sha256: []\n    tools: []\n`).issues[0]).toMatchObject({
      path: 'actors[0].api_keys_sha256',
      found: 'an empty list',
    });
    expect(problems('admins: []\n').issues[0]).toMatchObject({ path: 'actors', found: 'nothing (the field is missing)' });
    expect(problems('').issues[0]).toMatchObject({ path: '', found: 'null (an empty value)' });
    expect(problems('actors: [\n').issues[0]).toMatchObject({ code: 'yaml_syntax', path: '' });
    expect(problems('actors: []\nactors: []\n').issues[0]?.code).toBe('yaml_syntax');
  });
});

describe('parseActorsFile: per-actor limits', () => {
  const actor = (id: string, extra = ''): string => `  - id: ${id}\n    api_keys_sha256: [${hashApiKey(id)}]\n    tools: "*"\n${extra}`;

  it('given no limits anywhere, when parsed, then every actor gets the built-in ones (existing files load unchanged)', () => {
    const file = parseActorsFile(valid, 'actors.yaml');
    expect(file.limits.defaults).toEqual(BUILT_IN_ACTOR_LIMITS);
    expect(file.limits.byActor.get('agent:deploy-bot')).toEqual(BUILT_IN_ACTOR_LIMITS);
    expect(new ActorDirectory(file).limitsOf('agent:report-bot')).toEqual(BUILT_IN_ACTOR_LIMITS);
  });

  it("given defaults: and an actor's own limits, when parsed, then each field comes from the actor, else the defaults, else built-in", () => {
    const file = parseActorsFile(
      `defaults:\n  limits:\n    rate_per_second: 5\n    max_in_flight: 7\nactors:\n${actor('agent:a', '    limits:\n      burst: 3\n      rate_per_second: 0.5\n')}${actor('agent:b')}`,
      'actors.yaml',
    );
    const directory = new ActorDirectory(file);
    expect(directory.limitsOf('agent:a')).toEqual({ ratePerSecond: 0.5, burst: 3, maxInFlight: 7 });
    expect(directory.limitsOf('agent:b')).toEqual({ ratePerSecond: 5, burst: BUILT_IN_ACTOR_LIMITS.burst, maxInFlight: 7 });
    expect(directory.limitsOf('agent:not-declared')).toEqual({ ratePerSecond: 5, burst: BUILT_IN_ACTOR_LIMITS.burst, maxInFlight: 7 });
  });

  it('given limits out of range or of the wrong kind, when parsed, then each is named with file, path, the bound and the line', () => {
    const error = problems(
      `defaults:\n  limits:\n    burst: 0\n    max_in_flights: 3\nactors:\n${actor('agent:a', '    limits:\n      rate_per_second: -1\n      burst: 2.5\n      max_in_flight: "10"\n')}`,
    );
    expect(error.issues.map((issue) => [issue.code, issue.path, issue.line])).toEqual([
      ['invalid_field', 'defaults.limits.burst', 3],
      ['unknown_field', 'defaults.limits.max_in_flights', 4],
      ['invalid_field', 'actors[0].limits.rate_per_second', 10],
      ['invalid_field', 'actors[0].limits.burst', 11],
      ['invalid_field', 'actors[0].limits.max_in_flight', 12],
    ]);
    expect(error.message).toContain(
      'actors.yaml: defaults.limits.burst: got 0; expected how many calls may arrive at once: a whole number from 1 to 1000000 (line 3)',
    );
    expect(error.message).toContain('expected one of the known fields rate_per_second | burst | max_in_flight');
    expect(error.message).toContain('actors[0].limits.rate_per_second: got -1; expected calls per second for this actor: a number above 0');
    expect(error.message).toContain(
      'actors[0].limits.max_in_flight: got "10"; expected how many executions may be accepted and not yet settled at once',
    );
  });

  it('given an unknown field under defaults:, when parsed, then the known ones are listed', () => {
    const error = problems(`defaults:\n  session_grant: automatic\nactors:\n${actor('agent:a')}`);
    expect(error.issues[0]).toMatchObject({ code: 'unknown_field', path: 'defaults.session_grant', line: 2 });
    expect(error.message).toContain('expected one of the known fields limits');
  });
});
