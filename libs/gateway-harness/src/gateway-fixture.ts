import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEMO_CONTRACTS = join(__dirname, '../../domain/test/fixtures/contracts/demo.yaml');

export interface FixtureActor {
  readonly id: string;
  readonly key: string;
  readonly tools: readonly string[] | '*';
  readonly sessionGrant?: 'automatic' | 'human';
  /** The actor's `limits:` block of the actors file (README "Limits"); none: the built-in defaults. */
  readonly limits?: { readonly rate_per_second?: number; readonly burst?: number; readonly max_in_flight?: number };
}

/** The actors file's `oauth:` section (README "OAuth 2.1"), and the token subjects of its admin `ops:test-admin`. */
export interface FixtureOAuth {
  readonly section: Readonly<Record<string, string | number | readonly string[]>>;
  readonly adminSubjects?: readonly string[];
}

export interface GatewayFixture {
  readonly dir: string;
  readonly contractsDir: string;
  readonly actorsFile: string;
  readonly hmacKeys: string;
  readonly encryptionKeys: string;
  readonly adminKey: string;
  /** Environment shared by every Onceport process of a test. */
  env(extra?: Record<string, string>): Record<string, string>;
}

/**
 * Files a gateway needs to start, in a temp dir: the demo contracts aimed at `targetUrl`, an actors
 * file with hashed keys, an HMAC key and an encryption key — what an operator would write, made for one test.
 */
export function writeGatewayFixture(
  targetUrl: string,
  actors: readonly FixtureActor[],
  databaseUrl: string,
  natsUrl: string,
  oauth?: FixtureOAuth,
): GatewayFixture {
  const dir = mkdtempSync(join(tmpdir(), 'onceport-fixture-'));
  const contractsDir = join(dir, 'contracts');
  mkdirSync(contractsDir);
  const demo = readFileSync(DEMO_CONTRACTS, 'utf8').replace(/origin: https:\/\/[a-z.]+/g, `origin: ${targetUrl}`);
  writeFileSync(join(contractsDir, 'demo.yaml'), demo);
  const adminKey = `adm_${randomBytes(24).toString('base64url')}`;
  const actorsFile = join(dir, 'actors.yaml');
  const hash = (key: string): string => createHash('sha256').update(key).digest('hex');
  // JSON is YAML: the section as given.
  const lines = [...(oauth ? [`oauth: ${JSON.stringify(oauth.section)}`] : []), 'actors:'];
  for (const actor of actors) {
    lines.push(`  - id: ${JSON.stringify(actor.id)}`, `    api_keys_sha256: [${hash(actor.key)}]`);
    lines.push(
      `    tools: ${actor.tools === '*' ? '"*"' : JSON.stringify(actor.tools)}`,
      `    session_grant: ${actor.sessionGrant ?? 'automatic'}`,
    );
    if (actor.limits) lines.push(`    limits: ${JSON.stringify(actor.limits)}`);
  }
  lines.push('admins:', '  - id: "ops:test-admin"', `    api_keys_sha256: [${hash(adminKey)}]`);
  if (oauth?.adminSubjects) lines.push(`    oauth_subjects: ${JSON.stringify(oauth.adminSubjects)}`);
  writeFileSync(actorsFile, `${lines.join('\n')}\n`);
  const hmacKeys = `k1:${randomBytes(32).toString('base64')}`;
  // One random AES-256 key, as runtime's testEncryptionKeys() makes it; not imported, so runtime's own
  // specs can start the gateway through this harness without a dependency cycle.
  const encryptionKeys = `t1:${randomBytes(32).toString('base64')}`;
  return {
    dir,
    contractsDir,
    actorsFile,
    hmacKeys,
    encryptionKeys,
    adminKey,
    env: (extra = {}) => ({
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      ONCEPORT_DELIVERY: 'jetstream',
      ONCEPORT_CONTRACTS_DIR: contractsDir,
      ONCEPORT_ACTORS_FILE: actorsFile,
      ONCEPORT_HMAC_KEYS: hmacKeys,
      ONCEPORT_ENCRYPTION_KEYS: encryptionKeys,
      // Test stacks share one PostgreSQL (max_connections 100) two projects at a time: the smallest
      // pools a service works with (today also a deployment's default), whatever that default becomes.
      ONCEPORT_PG_POOL_MAX: '8',
      ...extra,
    }),
  };
}
