export interface BannerFacts {
  readonly url: string;
  readonly agentKey: string;
  readonly adminKey: string;
  readonly targetUrl: string;
  readonly dataDir: string;
}

/** What a person needs to make a first call, printed once the gateway serves. */
export function printBanner(facts: BannerFacts): void {
  const curl = [
    `curl -s ${facts.url}/v1/executions \\`,
    `  -H 'Authorization: Bearer ${facts.agentKey}' -H 'Content-Type: application/json' \\`,
    `  -d '{"tool":"send_email","arguments":{"recipient":"ana@example.com","campaign_id":"welcome","subject":"Hi","body":"Hello Ana"}}'`,
  ].join('\n');
  process.stdout.write(
    [
      '',
      'Onceport is running (embedded: PostgreSQL from npm, in-process delivery, demo target and contracts).',
      '',
      `  MCP endpoint   ${facts.url}/mcp        (Streamable HTTP; Authorization: Bearer <API key>)`,
      `  REST           ${facts.url}/v1/executions`,
      `  API key        ${facts.agentKey}`,
      `  admin key      ${facts.adminKey}   (POST ${facts.url}/v1/admin/vault/lock)`,
      `  demo target    ${facts.targetUrl}   (effects: ${facts.targetUrl}/__control/effects)`,
      `  data           ${facts.dataDir}`,
      '',
      'A first call to try. Run it twice: the second answer is the same execution, marked as a replay, and the target saw one e-mail.',
      '',
      curl,
      '',
      `${JSON.stringify({ service: 'onceport', event: 'listening', url: facts.url })}`,
      '',
    ].join('\n'),
  );
}
