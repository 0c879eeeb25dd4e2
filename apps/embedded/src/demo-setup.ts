import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from './data-dir';

const DEMO_CONTRACTS = join(__dirname, '../demo/contracts.yaml');

/** Demo credentials for the demo target; a user's own contracts get theirs as the dispatcher does. */
export const DEMO_CREDENTIALS: Readonly<Record<string, string>> = {
  ONCEPORT_CREDENTIAL_DEPLOY_API: 'demo-deploy-token',
  ONCEPORT_CREDENTIAL_MAIL_API: 'demo-mail-token',
  ONCEPORT_CREDENTIAL_PAYMENTS_LIVE: 'demo-payments-token',
  ONCEPORT_CREDENTIAL_CI_READONLY: 'demo-ci-token',
};

export interface DemoSecrets {
  readonly agentKey: string;
  readonly adminKey: string;
  readonly hmacKeys: string;
  /** Seals sensitive arguments; a data dir from before sealing existed gets one on its next start. */
  readonly encryptionKeys: string;
}

/** Made once and kept (0600) in the data dir, so keys and fingerprints survive restarts. */
/** Where the generated keys are kept (0600): the banner points operators at it for the console's admin key. */
export const demoSecretsFile = (dataDir: string): string => join(dataDir, 'demo-secrets.json');

export function demoSecrets(dataDir: string): DemoSecrets {
  const secretsFile = demoSecretsFile(dataDir);
  if (!existsSync(secretsFile)) {
    const secrets: DemoSecrets = {
      agentKey: `op_${randomBytes(24).toString('base64url')}`,
      adminKey: `adm_${randomBytes(24).toString('base64url')}`,
      hmacKeys: `demo-1:${randomBytes(32).toString('base64')}`,
      encryptionKeys: newEncryptionKeys(),
    };
    writePrivateFile(secretsFile, JSON.stringify(secrets, null, 2));
  }
  const kept = JSON.parse(readFileSync(secretsFile, 'utf8')) as Omit<DemoSecrets, 'encryptionKeys'> & { encryptionKeys?: string };
  if (kept.encryptionKeys !== undefined) return { ...kept, encryptionKeys: kept.encryptionKeys };
  // Made once like the HMAC key and kept: it must open what it sealed on earlier starts.
  const upgraded: DemoSecrets = { ...kept, encryptionKeys: newEncryptionKeys() };
  writePrivateFile(secretsFile, JSON.stringify(upgraded, null, 2));
  return upgraded;
}

function newEncryptionKeys(): string {
  return `demo-1:${randomBytes(32).toString('base64')}`;
}

/** The demo contracts aimed at the demo target; its port can change between runs, so rewritten every start. */
export function writeDemoContracts(dataDir: string, targetUrl: string): string {
  const contractsDir = join(dataDir, 'contracts');
  mkdirSync(contractsDir, { recursive: true, mode: 0o700 });
  writePrivateFile(join(contractsDir, 'demo.yaml'), readFileSync(DEMO_CONTRACTS, 'utf8').replaceAll('http://demo-target', targetUrl));
  return contractsDir;
}

/** An agent that may use every tool and an admin, by key hash (0600: hashes of keys are secrets too). */
export function writeDemoActors(dataDir: string, secrets: DemoSecrets): string {
  const actorsFile = join(dataDir, 'actors.yaml');
  const hash = (key: string): string => createHash('sha256').update(key).digest('hex');
  writePrivateFile(
    actorsFile,
    [
      'actors:',
      '  - id: "agent:demo"',
      `    api_keys_sha256: [${hash(secrets.agentKey)}]`,
      '    tools: "*"',
      '    session_grant: automatic',
      'admins:',
      '  - id: "ops:demo-admin"',
      `    api_keys_sha256: [${hash(secrets.adminKey)}]`,
      '',
    ].join('\n'),
  );
  return actorsFile;
}
