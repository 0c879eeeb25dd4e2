import { ActorDirectory } from './actor-directory';
import { ActorsFileError } from './actors-file-error';
import { hashApiKey } from './api-key';
import { parseActorsFile } from './parse-actors-file';

const DEPLOY_KEY = 'op_deploy-key-1';

const oauth = (fields = ''): string => `oauth:\n  issuer: https://auth.example.com\n  resource: https://onceport.example/mcp\n${fields}`;

const withOAuth = `
${oauth('  actor_claim: client_id\n  required_scopes: [onceport]\n')}
actors:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey(DEPLOY_KEY)}]
    tools: [create_deployment]
    oauth_subjects: [deploy-bot, deploy-bot-canary]
  - id: agent:token-only
    tools: "*"
    oauth_subjects: [report-bot]
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey('op_alice')}]
`;

function problems(text: string, keys?: { text: string; file: string }): ActorsFileError {
  try {
    parseActorsFile(text, 'actors.yaml', keys);
  } catch (error) {
    expect(error).toBeInstanceOf(ActorsFileError);
    return error as ActorsFileError;
  }
  throw new Error('expected an ActorsFileError');
}

describe('parseActorsFile: the oauth: section', () => {
  it('given an oauth: section, when parsed, then its settings and each subject’s actor are known, defaults filled in', () => {
    const file = parseActorsFile(withOAuth, 'actors.yaml');
    expect(file.oauth).toEqual({
      issuer: 'https://auth.example.com',
      resource: 'https://onceport.example/mcp',
      jwksUri: null,
      actorClaim: 'client_id',
      requiredScopes: ['onceport'],
      clockToleranceSeconds: 30,
      subjects: new Map([
        ['deploy-bot', 'agent:deploy-bot'],
        ['deploy-bot-canary', 'agent:deploy-bot'],
        ['report-bot', 'agent:token-only'],
      ]),
      adminClaim: 'sub',
      adminAudience: 'https://onceport.example/mcp',
      adminSubjects: new Map(),
    });
    const directory = new ActorDirectory(file);
    expect(directory.actorForOAuthSubject('deploy-bot-canary')?.id).toBe('agent:deploy-bot');
    expect(directory.actorForOAuthSubject('report-bot')).toMatchObject({ id: 'agent:token-only', apiKeysSha256: [], tools: '*' });
    expect(directory.actorForOAuthSubject('stranger')).toBeNull();
    // API keys work as before, and a token subject is not a key.
    expect(directory.authenticate(DEPLOY_KEY)?.id).toBe('agent:deploy-bot');
    expect(directory.authenticate('deploy-bot')).toBeNull();
  });

  it('given no oauth: section, when parsed, then oauth is null and no subject names anyone (API keys only, as before)', () => {
    const file = parseActorsFile(`actors:\n  - id: agent:x\n    api_keys_sha256: [${hashApiKey('k')}]\n    tools: []\n`, 'a.yaml');
    expect(file.oauth).toBeNull();
    expect(new ActorDirectory(file).actorForOAuthSubject('agent:x')).toBeNull();
  });

  it('given the defaults left out, when parsed, then the actor claim is sub, no scope is required and clocks may differ by 30 s', () => {
    const file = parseActorsFile(`${oauth('  jwks_uri: http://127.0.0.1:8080/jwks?tenant=a\n')}actors: []\n`, 'a.yaml');
    expect(file.oauth).toMatchObject({ actorClaim: 'sub', requiredScopes: [], clockToleranceSeconds: 30 });
    expect(file.oauth?.jwksUri).toBe('http://127.0.0.1:8080/jwks?tenant=a');
  });

  it('given bad URLs, claim names, scopes and tolerances, when parsed, then each is named with its path, what is expected and the line', () => {
    const error = problems(`oauth:
  issuer: http://auth.example.com
  resource: https://onceport.example/mcp#tools
  jwks_uri: ftp://auth.example.com/jwks
  actor_claim: "client id"
  required_scopes: ["two words"]
  clock_tolerance_seconds: 301
  audience: x
actors: []
`);
    expect(error.issues.map((issue) => [issue.code, issue.path, issue.line])).toEqual([
      ['invalid_field', 'oauth.issuer', 2],
      ['invalid_field', 'oauth.resource', 3],
      ['invalid_field', 'oauth.jwks_uri', 4],
      ['invalid_field', 'oauth.actor_claim', 5],
      ['invalid_field', 'oauth.required_scopes[0]', 6],
      ['invalid_field', 'oauth.clock_tolerance_seconds', 7],
      ['unknown_field', 'oauth.audience', 8],
    ]);
    expect(error.message).toContain(
      'actors.yaml: oauth.issuer: got "http://auth.example.com"; expected the authorization server\'s issuer identifier: an https URL',
    );
    expect(error.message).toContain('http only on a loopback host, for tests');
    expect(error.message).toContain(
      'oauth.resource: got "https://onceport.example/mcp#tools"; expected this server\'s resource identifier (RFC 8707)',
    );
    expect(error.message).toContain(
      'expected one of the known fields issuer | resource | jwks_uri | actor_claim | required_scopes | clock_tolerance_seconds | admin_claim | admin_audience',
    );
  });

  it('given an issuer or resource with a query, credentials, or no scheme, when parsed, then each is refused', () => {
    const error = problems(`oauth:\n  issuer: https://auth.example.com/?tenant=a\n  resource: onceport.example/mcp\nactors: []\n`);
    expect(error.issues.map((issue) => issue.path)).toEqual(['oauth.issuer', 'oauth.resource']);
    expect(problems(`oauth:\n  issuer: https://u:p@auth.example.com\n  resource: https://o.example\nactors: []\n`).issues[0]?.path).toBe(
      'oauth.issuer',
    );
    expect(problems(`oauth:\n  resource: https://o.example\nactors: []\n`).issues[0]).toMatchObject({
      path: 'oauth.issuer',
      found: 'nothing (the field is missing)',
    });
  });

  it('accepts http on every loopback spelling, for tests', () => {
    for (const host of ['127.0.0.1:9000', 'localhost', '[::1]:9000']) {
      const file = parseActorsFile(`oauth:\n  issuer: http://${host}\n  resource: http://${host}/mcp\nactors: []\n`, 'a.yaml');
      expect(file.oauth?.issuer).toBe(`http://${host}`);
    }
  });
});

describe('parseActorsFile: oauth_subjects of actors', () => {
  it('given subjects but no oauth: section, when parsed, then the subjects are refused: nothing could verify those tokens', () => {
    const error = problems(`actors:\n  - id: agent:x\n    api_keys_sha256: [${hashApiKey('k')}]\n    tools: []\n    oauth_subjects: [x]\n`);
    expect(error.issues).toEqual([expect.objectContaining({ code: 'oauth_not_configured', path: 'actors[0].oauth_subjects', line: 5 })]);
    expect(error.message).toContain('expected an oauth: section (issuer, resource) saying whose tokens to accept');
  });

  it('given one subject listed for two actors, when parsed, then the second is refused, naming the first actor', () => {
    const error = problems(`${oauth()}actors:
  - id: agent:a
    tools: []
    oauth_subjects: [shared]
  - id: agent:b
    tools: []
    oauth_subjects: [own, shared]
`);
    expect(error.issues).toEqual([
      expect.objectContaining({
        code: 'duplicate_oauth_subject',
        path: 'actors[1].oauth_subjects[1]',
        found: '"shared", already a subject of agent:a',
      }),
    ]);
  });

  it('given an actor with neither keys nor subjects, when parsed with oauth:, then missing_keys says either will do', () => {
    const error = problems(`${oauth()}actors:\n  - id: agent:nobody\n    tools: []\n`);
    expect(error.issues[0]).toMatchObject({ code: 'missing_keys', path: 'actors[0].api_keys_sha256' });
    expect(error.message).toContain('or oauth_subjects: [...] for an identity that signs in with OAuth access tokens only');
  });

  it('given bad subjects, when parsed, then each is refused with its path', () => {
    const error = problems(`${oauth()}actors:
  - id: agent:a
    tools: []
    oauth_subjects: [" padded", ""]
  - id: agent:b
    tools: []
    oauth_subjects: []
`);
    expect(error.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['invalid_field', 'actors[0].oauth_subjects[0]'],
      ['invalid_field', 'actors[0].oauth_subjects[1]'],
      ['invalid_field', 'actors[1].oauth_subjects'],
    ]);
    expect(error.message).toContain('expected a list of values of the oauth actor_claim that are this actor');
  });

  it('given a keys file, when an actor has subjects only, then it needs no entry there', () => {
    const file = parseActorsFile(`${oauth()}actors:\n  - id: agent:token-only\n    tools: "*"\n    oauth_subjects: [t]\n`, 'actors.yaml', {
      text: 'keys: []\n',
      file: 'actor-keys.yaml',
    });
    expect(file.actors[0]).toMatchObject({ id: 'agent:token-only', apiKeysSha256: [] });
  });
});
