import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface TestOAuthClient {
  readonly clientId: string;
  readonly secret: string;
  /** The scopes this client may ask for (space-separated); none by default. */
  readonly scope?: string;
  /** How long its access tokens live; 300 s by default. */
  readonly accessTokenTtlSeconds?: number;
}

/** A client that signs people in (authorization code + PKCE) on the server's development login form. */
export interface TestOAuthCodeClient {
  readonly clientId: string;
  /** None: a public client. */
  readonly secret?: string;
  /** Loopback redirect URIs match on any port (the client is registered as native). */
  readonly redirectUris: readonly string[];
  readonly scope?: string;
  readonly accessTokenTtlSeconds?: number;
}

export interface IssuedToken {
  readonly accessToken: string;
  readonly expiresIn: number;
  readonly scope: string | null;
}

/** oidc-provider in its own process (oauth-authorization-server.mjs), issuing JWT access tokens. */
export interface TestAuthorizationServer {
  readonly issuer: string;
  /** The client credentials grant (client_secret_basic), for `resource` (RFC 8707) and `scope`. */
  token(clientId: string, request: { resource: string; scope?: string }): Promise<IssuedToken>;
  close(): Promise<void>;
}

const SCRIPT = join(__dirname, 'oauth-authorization-server.mjs');
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

/**
 * Starts a real OAuth authorization server on a loopback port and waits until it accepts
 * connections. `scopes`: every scope it knows (the clients' must be among them).
 *
 * @example const as = await startTestAuthorizationServer({ clients: [{ clientId: 'bot', secret: 's3cret' }], scopes: [] });
 */
export async function startTestAuthorizationServer(options: {
  clients: readonly TestOAuthClient[];
  /** Clients for people's sign-in (authorization code); the login form is served when there are any. */
  codeClients?: readonly TestOAuthCodeClient[];
  scopes: readonly string[];
}): Promise<TestAuthorizationServer> {
  const config = {
    clients: options.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.secret,
      scope: c.scope,
      access_token_ttl_seconds: c.accessTokenTtlSeconds,
    })),
    code_clients: (options.codeClients ?? []).map((c) => ({
      client_id: c.clientId,
      client_secret: c.secret,
      redirect_uris: c.redirectUris,
      scope: c.scope,
      access_token_ttl_seconds: c.accessTokenTtlSeconds,
    })),
    scopes: options.scopes,
  };
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const issuer = await firstLine(child);
  const secrets = new Map(options.clients.map((c) => [c.clientId, c.secret]));
  return {
    issuer,
    token: (clientId, request) => requestToken(issuer, clientId, secrets.get(clientId) ?? '', request),
    close: () => stop(child),
  };
}

async function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = `${stderr}${chunk.toString('utf8')}`.slice(-4000)));
  const lines = createInterface({ input: child.stdout });
  const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
  try {
    const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit')])) as [unknown];
    if (typeof line !== 'string') throw new Error(`the test authorization server exited before listening: ${stderr}`);
    return (JSON.parse(line) as { issuer: string }).issuer;
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}

async function requestToken(
  issuer: string,
  clientId: string,
  secret: string,
  request: { resource: string; scope?: string },
): Promise<IssuedToken> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      resource: request.resource,
      ...(request.scope ? { scope: request.scope } : {}),
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { access_token?: string; expires_in?: number; scope?: string; error?: string };
  if (!response.ok || !body.access_token)
    throw new Error(`token request for ${clientId} failed: HTTP ${response.status} ${JSON.stringify(body)}`);
  return { accessToken: body.access_token, expiresIn: body.expires_in ?? 0, scope: body.scope ?? null };
}

async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
