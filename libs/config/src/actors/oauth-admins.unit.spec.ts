import { ActorDirectory } from './actor-directory';
import { ActorsFileError } from './actors-file-error';
import { hashApiKey } from './api-key';
import { parseActorsFile } from './parse-actors-file';

const section = (fields = ''): string =>
  `oauth:\n  issuer: https://auth.example.com\n  resource: https://onceport.example/mcp\n  actor_claim: client_id\n${fields}`;

function problems(text: string): ActorsFileError {
  try {
    parseActorsFile(text, 'actors.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ActorsFileError);
    return error as ActorsFileError;
  }
  throw new Error('expected an ActorsFileError');
}

describe('parseActorsFile: operators as admins by OAuth (admins[].oauth_subjects)', () => {
  const file = `${section('  admin_audience: https://onceport.example/admin\n')}actors:
  - id: agent:deploy-bot
    tools: "*"
    oauth_subjects: [deploy-bot]
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey('op_alice')}]
    oauth_subjects: [alice, alice@corp]
  - id: ops:bob
    oauth_subjects: [bob]
`;

  it('maps each admin_claim value to its admin; an admin with subjects needs no key', () => {
    const parsed = parseActorsFile(file, 'actors.yaml');
    expect(parsed.oauth).toMatchObject({
      adminClaim: 'sub',
      adminAudience: 'https://onceport.example/admin',
      adminSubjects: new Map([
        ['alice', 'ops:alice'],
        ['alice@corp', 'ops:alice'],
        ['bob', 'ops:bob'],
      ]),
    });
    const directory = new ActorDirectory(parsed);
    expect(directory.adminForOAuthSubject('alice@corp')?.id).toBe('ops:alice');
    expect(directory.adminForOAuthSubject('bob')).toEqual({ id: 'ops:bob', apiKeysSha256: [] });
    // An agent's subject is not an admin's, nor the other way round; a key is not a subject.
    expect(directory.adminForOAuthSubject('deploy-bot')).toBeNull();
    expect(directory.actorForOAuthSubject('alice')).toBeNull();
    expect(directory.adminForOAuthSubject('op_alice')).toBeNull();
    expect(directory.authenticateAdmin('op_alice')?.id).toBe('ops:alice');
  });

  it('defaults: admin_claim sub, and operators’ tokens carry the resource as their audience', () => {
    const parsed = parseActorsFile(`${section()}actors: []\nadmins:\n  - id: ops:carol\n    oauth_subjects: [carol]\n`, 'a.yaml');
    expect(parsed.oauth).toMatchObject({ adminClaim: 'sub', adminAudience: 'https://onceport.example/mcp' });
  });

  it('without an oauth: section, an admin’s subjects are refused, and nothing maps', () => {
    const error = problems(
      `actors: []\nadmins:\n  - id: ops:alice\n    api_keys_sha256: [${hashApiKey('k')}]\n    oauth_subjects: [alice]\n`,
    );
    expect(error.issues).toEqual([expect.objectContaining({ code: 'oauth_not_configured', path: 'admins[0].oauth_subjects', line: 5 })]);
  });

  it('refuses a subject listed for two admins, and — when one claim names both — for an agent and an admin', () => {
    const twice = problems(`${section()}actors: []\nadmins:
  - id: ops:a
    oauth_subjects: [shared]
  - id: ops:b
    oauth_subjects: [shared]
`);
    expect(twice.issues).toEqual([
      expect.objectContaining({
        code: 'duplicate_oauth_subject',
        path: 'admins[1].oauth_subjects[0]',
        found: '"shared", already a subject of ops:a',
      }),
    ]);
    const both = problems(`${section('  admin_claim: client_id\n')}actors:
  - id: agent:bot
    tools: "*"
    oauth_subjects: [bot]
admins:
  - id: ops:bot
    oauth_subjects: [bot]
`);
    expect(both.issues).toEqual([expect.objectContaining({ code: 'duplicate_oauth_subject', path: 'admins[0].oauth_subjects[0]' })]);
    expect(both.message).toContain('an agent is not an operator');
    // Different claims: the same text names different things (a client id, a person's sub).
    expect(() =>
      parseActorsFile(
        `${section()}actors:\n  - id: agent:bot\n    tools: "*"\n    oauth_subjects: [bot]\nadmins:\n  - id: ops:bot\n    oauth_subjects: [bot]\n`,
        'a.yaml',
      ),
    ).not.toThrow();
  });

  it('refuses bad subjects and a bad admin claim or audience, each with its path', () => {
    const error = problems(`${section('  admin_claim: "two words"\n  admin_audience: https://onceport.example/admin?x=1\n')}actors: []
admins:
  - id: ops:a
    oauth_subjects: [" padded"]
`);
    expect(error.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['invalid_field', 'oauth.admin_claim'],
      ['invalid_field', 'oauth.admin_audience'],
      ['invalid_field', 'admins[0].oauth_subjects[0]'],
    ]);
    expect(error.message).toContain('values of the oauth admin_claim that are this admin');
  });
});
