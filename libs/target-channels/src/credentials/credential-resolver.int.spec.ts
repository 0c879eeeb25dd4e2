import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TargetChannels } from '../target-channels';
import { CredentialResolver, MissingCredentialError } from './credential-resolver';

describe('CredentialResolver', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onceport-credentials-'));
    writeFileSync(join(dir, 'mail-api'), 'tok_from_file\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads ONCEPORT_CREDENTIAL_<REF> first, with - and . as _', () => {
    const resolver = new CredentialResolver({ ONCEPORT_CREDENTIAL_DEPLOY_API_V2: 'tok_env' }, dir);
    expect(resolver.resolve('deploy-api.v2')).toBe('tok_env');
  });

  it('falls back to a file named after the ref, trimmed', () => {
    expect(new CredentialResolver({}, dir).resolve('mail-api')).toBe('tok_from_file');
  });

  it('names the ref and where it looked, never a value, when it is missing', () => {
    const resolve = (): string => new CredentialResolver({ ONCEPORT_CREDENTIAL_OTHER: 'tok_other' }, dir).resolve('payments');
    expect(resolve).toThrow(MissingCredentialError);
    expect(resolve).toThrow(`credential "payments" is not configured (looked in ONCEPORT_CREDENTIAL_PAYMENTS and ${dir})`);
  });
});

describe('TargetChannels.fromEnv', () => {
  it('reads the credentials and their directory from the one environment it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onceport-credentials-'));
    writeFileSync(join(dir, 'ssh-deploy'), 'key_from_file');
    const channels = TargetChannels.fromEnv({ ONCEPORT_CREDENTIAL_DEPLOY_API: 'tok_env', ONCEPORT_CREDENTIALS_DIR: dir });
    try {
      expect(channels.credentials.resolve('deploy-api')).toBe('tok_env');
      expect(channels.credentials.resolve('ssh-deploy')).toBe('key_from_file');
      expect(channels.credentials.secretValues()).toEqual(['tok_env']);
    } finally {
      await channels.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
