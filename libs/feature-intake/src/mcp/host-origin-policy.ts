import type { IncomingHttpHeaders } from 'node:http';

/** The names a loopback-bound server answers to by default (any port), per the MCP spec's DNS-rebinding advice. */
const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Which `Host` and `Origin` headers `/mcp` accepts. A DNS-rebinding page reaches a local server
 * under its own name (`Host: evil.example`) and from its own origin; the allow-lists refuse both.
 *
 * - `hosts`: entries are a host name (any port) or `name:port`; `null` accepts any Host (a server
 *   bound to a non-loopback address without `ONCEPORT_ALLOWED_HOSTS` cannot know its public names).
 * - `origins`: exact origins (`scheme://host[:port]`); `loopback` accepts any origin whose host is
 *   a loopback name. A request without `Origin` (every non-browser MCP client) passes; one with an
 *   Origin outside the list does not.
 */
export interface HostOriginPolicy {
  readonly hosts: readonly string[] | null;
  readonly origins: readonly string[] | 'loopback';
}

export interface HostOriginRefusal {
  /** 403 for both: what the MCP spec asks for a bad Origin, and what the SDK's own Host validation answers. */
  readonly status: 403;
  readonly message: string;
}

export interface HostOriginSettings {
  /** The address the server listens on (`HOST`). */
  readonly bindHost: string;
  readonly allowedHosts?: readonly string[] | undefined;
  readonly allowedOrigins?: readonly string[] | undefined;
}

/** The policy for a server bound to `bindHost`: loopback names only on loopback, unless lists are configured. */
export function hostOriginPolicyOf(settings: HostOriginSettings): HostOriginPolicy {
  const loopback = isLoopbackAddress(settings.bindHost);
  return {
    hosts: settings.allowedHosts ?? (loopback ? LOOPBACK_NAMES : null),
    origins: settings.allowedOrigins ?? (loopback ? 'loopback' : []),
  };
}

/** Null when the request may go on; otherwise why it is refused (the header value is not echoed). */
export function checkHostOrigin(policy: HostOriginPolicy, headers: IncomingHttpHeaders): HostOriginRefusal | null {
  if (policy.hosts !== null) {
    const host = parseAuthority(headers.host);
    if (!host) return { status: 403, message: 'Forbidden: missing or malformed Host header' };
    if (!policy.hosts.some((entry) => hostMatches(entry, host)))
      return { status: 403, message: 'Forbidden: Host is not one this server answers to (see ONCEPORT_ALLOWED_HOSTS)' };
  }
  const origin = headers.origin;
  if (origin === undefined) return null;
  const parsed = parseOrigin(origin);
  const allowed =
    parsed !== null && (policy.origins === 'loopback' ? LOOPBACK_NAMES.includes(parsed.hostname) : policy.origins.includes(parsed.origin));
  return allowed ? null : { status: 403, message: 'Forbidden: Origin is not allowed (see ONCEPORT_ALLOWED_ORIGINS)' };
}

/** An allow-list entry as written in the environment, normalised; null when it is not a host[:port]. */
export function normaliseHostEntry(entry: string): string | null {
  const parsed = parseAuthority(entry);
  if (!parsed) return null;
  return parsed.port === '' ? parsed.hostname : `${parsed.hostname}:${parsed.port}`;
}

/** An origin as written in the environment, normalised (`https://a.example:443` → `https://a.example`); null when it is not one. */
export function normaliseOrigin(entry: string): string | null {
  return parseOrigin(entry)?.origin ?? null;
}

export function isLoopbackAddress(address: string): boolean {
  return address === 'localhost' || address === '::1' || address === '[::1]' || /^127(\.\d{1,3}){3}$/.test(address);
}

function hostMatches(entry: string, host: { hostname: string; port: string }): boolean {
  const colon = entry.lastIndexOf(':');
  const hasPort = colon > entry.lastIndexOf(']');
  return hasPort ? entry === `${host.hostname}:${host.port}` : entry === host.hostname;
}

function parseAuthority(value: string | undefined): { hostname: string; port: string } | null {
  if (!value || value.length > 300 || /[/?#@\s]/.test(value)) return null;
  try {
    const url = new URL(`http://${value}`);
    // The URL parser drops a default port (`:80`); the header's own digits are what an entry names.
    return { hostname: url.hostname.toLowerCase(), port: url.port || (/:(\d{1,5})$/.exec(value)?.[1] ?? '') };
  } catch {
    return null; // not an authority: refused like a wrong one
  }
}

function parseOrigin(value: string): { origin: string; hostname: string } | null {
  if (value.length > 300) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.pathname !== '/' || url.search || url.hash || url.username) return null;
    return { origin: url.origin.toLowerCase(), hostname: url.hostname.toLowerCase() };
  } catch {
    return null; // `null` (a sandboxed page) and other non-origins are refused
  }
}
