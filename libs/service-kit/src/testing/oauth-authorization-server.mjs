// A real OAuth 2.1 authorization server for tests: oidc-provider issuing access tokens as JWTs
// (RFC 9068) for the resource the client asks for (RFC 8707) — client credentials for machines, and
// the authorization code flow (PKCE) for people, who log in on its development login form (any
// login name is an account; the password is not checked) and consent. Run as a child process
// (oidc-provider is ESM-only, and jest on Node 20 loads CommonJS): see oauth-authorization-server.ts.
// Configuration comes as JSON in argv[2]:
//   { "clients": [{ "client_id", "client_secret", "scope"?, "access_token_ttl_seconds"? }],
//     "code_clients": [{ "client_id", "client_secret"?, "redirect_uris", "scope"?, "access_token_ttl_seconds"? }],
//     "scopes": [...] }
// Prints one line, `{"issuer": "http://127.0.0.1:<port>"}`, once it accepts connections, and exits
// when its stdin closes (the test process is gone) or on SIGTERM.
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2] ?? '{}');
const clients = config.clients ?? [];
const codeClients = config.code_clients ?? [];
const scopes = config.scopes ?? [];
const ttlOf = new Map([...clients, ...codeClients].map((c) => [c.client_id, c.access_token_ttl_seconds ?? 300]));

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

// A fresh signing key per run: no test may depend on a key another run (or a fixture) knows.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: `test-as-${process.pid}`, alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [
    ...clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      ...(c.scope ? { scope: c.scope } : {}),
    })),
    ...codeClients.map((c) => ({
      client_id: c.client_id,
      ...(c.client_secret ? { client_secret: c.client_secret } : {}),
      token_endpoint_auth_method: c.client_secret ? 'client_secret_basic' : 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      // native: a loopback redirect URI matches on any port (RFC 8252 §7.3), so a test can register it before the client listens.
      application_type: 'native',
      redirect_uris: c.redirect_uris,
      ...(c.scope ? { scope: c.scope } : {}),
    })),
  ],
  scopes: ['openid', ...scopes],
  jwks: { keys: [signingKey] },
  // The development login and consent forms: enough for a browser test, never for production.
  features: {
    devInteractions: { enabled: codeClients.length > 0 },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      // Any resource a client names: the tests ask for this server's and for another one.
      getResourceServerInfo: async (_ctx, resource, client) => ({
        scope: scopes.join(' '),
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: ttlOf.get(client.clientId) ?? 300,
      }),
    },
  },
});
server.on('request', provider.callback());

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
const stop = () => server.close(() => process.exit(0));
process.stdin.on('end', stop).resume();
process.once('SIGTERM', stop);
