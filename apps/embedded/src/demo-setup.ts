import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DEMO_CONTRACTS = join(__dirname, '../demo/contracts.yaml');

export interface DemoSetup {
  readonly contractsDir: string;
  readonly actorsFile: string;
  readonly hmacKeys: string;
  readonly encryptionKeys: string;
  readonly agentKey: string;
  readonly adminKey: string;
}

/**
 * What an operator would configure, made once and kept in the data dir so keys survive restarts:
 * the demo contracts aimed at the demo target, an agent and an admin with hashed keys, an HMAC key.
 */
export function prepareDemo(dataDir: string, targetUrl: string): DemoSetup {
  mkdirSync(dataDir, { recursive: true });
  const secretsFile = join(dataDir, 'demo-secrets.json');
  if (!existsSync(secretsFile)) {
    const secrets = {
      agentKey: `op_${randomBytes(24).toString('base64url')}`,
      adminKey: `adm_${randomBytes(24).toString('base64url')}`,
      hmacKeys: `demo-1:${randomBytes(32).toString('base64')}`,
    };
    writeFileSync(secretsFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as { agentKey: string; adminKey: string; hmacKeys: string; encryptionKeys?: string };
  if (secrets.encryptionKeys === undefined) {
    // Made once like the HMAC key (a data dir from before sealing existed gets one now): it opens what it sealed.
    secrets.encryptionKeys = `demo-1:${randomBytes(32).toString('base64')}`;
    writeFileSync(secretsFile, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  const contractsDir = join(dataDir, 'contracts');
  mkdirSync(contractsDir, { recursive: true });
  // The demo target's port can change between runs: the origins are rewritten every start.
  writeFileSync(join(contractsDir, 'demo.yaml'), readFileSync(DEMO_CONTRACTS, 'utf8').replaceAll('http://demo-target', targetUrl));
  const actorsFile = join(dataDir, 'actors.yaml');
  const hash = (key: string): string => createHash('sha256').update(key).digest('hex');
  writeFileSync(
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
  return { contractsDir, actorsFile, ...secrets, encryptionKeys: secrets.encryptionKeys };
}
