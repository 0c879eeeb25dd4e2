import { demoSecretsFile } from './demo-setup';
import type { EmbeddedSetup } from './embedded-config';

export interface BannerFacts {
  readonly url: string;
  readonly consoleUrl: string;
  readonly setup: EmbeddedSetup;
  /** Null when the user's own contracts are served. */
  readonly targetUrl: string | null;
  readonly dataDir: string;
  readonly clusterDir: string;
}

/** Where the admin key the console asks for is: the demo's generated one, or the admins of the user's actors file. */
function consoleSignIn(setup: EmbeddedSetup, dataDir: string): string {
  return setup.actors.kind === 'demo'
    ? `sign in with the admin key in ${demoSecretsFile(dataDir)} ("adminKey", the admin key above)`
    : `sign in with an admin key of the admins in ${setup.actors.file}`;
}

/** What a person needs to make a first call, printed once the gateway serves: and whose tools and keys these are. */
export function printBanner(facts: BannerFacts): void {
  const { setup } = facts;
  const demo = setup.contracts.kind === 'demo' && setup.actors.kind === 'demo';
  const what = demo
    ? 'demo target and contracts'
    : setup.contracts.kind === 'own'
      ? 'your contracts'
      : 'demo target and contracts, your actors';
  const lines = [
    '',
    `Onceport is running (embedded: PostgreSQL from npm, in-process delivery, ${what}).`,
    '',
    `  MCP endpoint   ${facts.url}/mcp        (Streamable HTTP; Authorization: Bearer <API key>)`,
    `  REST           ${facts.url}/v1/executions`,
    setup.contracts.kind === 'own'
      ? `  contracts      yours: ${setup.contracts.dir} (ONCEPORT_CONTRACTS_DIR)`
      : `  contracts      demo: ${setup.contracts.dir} (set ONCEPORT_CONTRACTS_DIR for your own)`,
  ];
  if (facts.targetUrl) lines.push(`  demo target    ${facts.targetUrl}   (effects: ${facts.targetUrl}/__control/effects)`);
  if (setup.actors.kind === 'own') {
    lines.push(`  actors         yours: ${setup.actors.file} (ONCEPORT_ACTORS_FILE); use your own API keys`);
  } else {
    lines.push(`  actors         demo: ${setup.actors.file} (set ONCEPORT_ACTORS_FILE for your own)`);
    lines.push(`  API key        ${setup.actors.agentKey}`);
    lines.push(`  admin key      ${setup.actors.adminKey}   (POST ${facts.url}/v1/admin/vault/lock)`);
  }
  lines.push(`  console        ${facts.consoleUrl} — ${consoleSignIn(setup, facts.dataDir)}`);
  lines.push(`  HMAC key       ${setup.hmacKeys === 'own' ? 'yours (ONCEPORT_HMAC_KEYS)' : 'generated, kept in the data directory'}`);
  lines.push(`  data           ${facts.dataDir}`);
  lines.push(`  postgres data  ${facts.clusterDir}`);
  if (demo && setup.actors.kind === 'demo') {
    const curl = [
      `curl -s ${facts.url}/v1/executions \\`,
      `  -H 'Authorization: Bearer ${setup.actors.agentKey}' -H 'Content-Type: application/json' \\`,
      `  -d '{"tool":"send_email","arguments":{"recipient":"ana@example.com","campaign_id":"welcome","subject":"Hi","body":"Hello Ana"}}'`,
    ].join('\n');
    lines.push(
      '',
      'A first call to try. Run it twice: the second answer is the same execution, marked as a replay, and the target saw one e-mail.',
      '',
      curl,
    );
  }
  lines.push('', `${JSON.stringify({ service: 'onceport', event: 'listening', url: facts.url })}`, '');
  process.stdout.write(lines.join('\n'));
}
