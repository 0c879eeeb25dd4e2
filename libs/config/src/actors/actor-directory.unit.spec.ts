import { ActorDirectory } from './actor-directory';
import { bearerToken, hashApiKey } from './api-key';
import { parseActorsFile } from './parse-actors-file';

const directory = new ActorDirectory(
  parseActorsFile(
    `
actors:
  - id: agent:deploy-bot
    api_keys_sha256: [${hashApiKey('op_old')}, ${hashApiKey('op_new')}]
    tools: [create_deployment]
    session_grant: automatic
  - id: agent:ops-bot
    api_keys_sha256: [${hashApiKey('op_ops')}]
    tools: "*"
admins:
  - id: ops:alice
    api_keys_sha256: [${hashApiKey('op_alice')}]
`,
    'actors.yaml',
  ),
);

describe('ActorDirectory', () => {
  it('authenticates an actor by any of its keys (rotation)', () => {
    expect(directory.authenticate('op_old')?.id).toBe('agent:deploy-bot');
    expect(directory.authenticate('op_new')?.id).toBe('agent:deploy-bot');
    expect(directory.authenticate('op_ops')?.id).toBe('agent:ops-bot');
  });

  it('knows nobody for an unknown, empty or missing token', () => {
    expect(directory.authenticate('op_unknown')).toBeNull();
    expect(directory.authenticate('')).toBeNull();
    expect(directory.authenticate(null)).toBeNull();
    expect(directory.authenticateAdmin(undefined)).toBeNull();
  });

  it('keeps actor and admin keys apart', () => {
    expect(directory.authenticateAdmin('op_alice')?.id).toBe('ops:alice');
    expect(directory.authenticate('op_alice')).toBeNull();
    expect(directory.authenticateAdmin('op_old')).toBeNull();
  });

  it('answers which tools an actor may call; an actor missing from the file may call nothing', () => {
    expect(directory.mayUse('agent:deploy-bot', 'create_deployment')).toBe(true);
    expect(directory.mayUse('agent:deploy-bot', 'charge_payment')).toBe(false);
    expect(directory.mayUse('agent:ops-bot', 'charge_payment')).toBe(true);
    expect(directory.mayUse('agent:stranger', 'create_deployment')).toBe(false);
    expect(directory.mayUse('ops:alice', 'create_deployment')).toBe(false);
  });

  it('exposes the policy version of its file', () => {
    expect(directory.policyVersion).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe('hashApiKey and bearerToken', () => {
  it('hash as `printf %s key | sha256sum` does', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('take the token of a Bearer header only', () => {
    expect(bearerToken('Bearer op_abc-123')).toBe('op_abc-123');
    expect(bearerToken('bearer  op_abc=')).toBe('op_abc=');
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeNull();
    expect(bearerToken('Bearer ')).toBeNull();
    expect(bearerToken('Bearer a b')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken(['Bearer a', 'Bearer b'])).toBeNull();
  });
});
