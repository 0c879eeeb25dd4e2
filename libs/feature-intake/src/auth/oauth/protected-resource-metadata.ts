import type { OAuthSettings } from '@onceport/config';
import { toolScope } from './tool-scope';

export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** RFC 9728 §2, as intake fills it in. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported: readonly string[];
  readonly bearer_methods_supported: readonly ['header'];
  readonly resource_name: string;
}

/**
 * Where the metadata of `resource` lives (RFC 9728 §3.1): the well-known segment inserted between
 * the host and the resource's path, e.g. https://onceport.example/mcp →
 * https://onceport.example/.well-known/oauth-protected-resource/mcp. Built from the configured
 * resource, never from the request's Host header (which a caller chooses).
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${resourcePath(url)}`;
}

/**
 * The paths intake answers the metadata on: the one derived from the resource (above), and the bare
 * well-known path, which MCP clients try when a 401 gave them no URL (MCP 2026-07-28, authorization
 * server discovery).
 */
export function resourceMetadataPaths(resource: string): readonly string[] {
  const path = resourcePath(new URL(resource));
  return path === '' ? [PROTECTED_RESOURCE_WELL_KNOWN] : [`${PROTECTED_RESOURCE_WELL_KNOWN}${path}`, PROTECTED_RESOURCE_WELL_KNOWN];
}

/**
 * The document: this resource, its one authorization server, header bearer tokens only (tokens in a
 * query string or a form body are refused: OAuth 2.1 §5.1), and the scopes intake understands — the
 * required ones and one `onceport:tool:<name>` per tool, which narrow a token to those tools.
 */
export function protectedResourceMetadata(
  settings: Pick<OAuthSettings, 'issuer' | 'resource' | 'requiredScopes'>,
  toolNames: readonly string[],
): ProtectedResourceMetadata {
  return {
    resource: settings.resource,
    authorization_servers: [settings.issuer],
    scopes_supported: [...settings.requiredScopes, ...[...toolNames].sort().map(toolScope)],
    bearer_methods_supported: ['header'],
    resource_name: 'Onceport',
  };
}

function resourcePath(url: URL): string {
  return url.pathname === '/' ? '' : url.pathname;
}
