import { checkCredentialRef } from './check-credential-ref';
import { checkWebUrl } from './check-web-url';
import { describeValue, draft, type IssueDraft, type PathSegment } from './issue-path';
import type { RawHttpUpstream } from './raw-mcp.schema';
import type { McpHttpUpstream, McpUpstreamAuth } from './tool-contract.types';

type HttpFields = Pick<McpHttpUpstream, 'url' | 'auth' | 'credentialRef'>;

/** RFC 6749 §3.3 scope-token, as for OAuth in actors.yaml. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
const OAUTH_ONLY = ['issuer', 'client_id', 'scope'] as const;

/** A remote MCP server over Streamable HTTP: its endpoint and how the dispatcher authenticates to it. */
export function checkHttpUpstream(raw: RawHttpUpstream, at: readonly PathSegment[], issues: IssueDraft[]): HttpFields {
  const url = checkWebUrl(raw.url, [...at, 'url'], { example: 'https://mcp.example.com/mcp', query: true }, issues);
  const credentialRef = checkCredentialRef(raw.credential_ref, [...at, 'credential_ref'], issues);
  return { url: url ?? raw.url, auth: checkAuth(raw, at, issues), credentialRef };
}

function checkAuth(raw: RawHttpUpstream, at: readonly PathSegment[], issues: IssueDraft[]): McpUpstreamAuth {
  const kind = raw.auth ?? (raw.credential_ref === undefined ? 'none' : 'bearer');
  if (kind === 'none' && raw.credential_ref !== undefined) {
    // A credential that is resolved but never sent would still enter every fingerprint, and hide a typo.
    issues.push(
      draft(
        'invalid_field',
        [...at, 'auth'],
        '"none" with a credential_ref',
        'auth: bearer (the credential is the token) or oauth_client_credentials (it is the client secret), or no credential_ref',
      ),
    );
  }
  if (kind !== 'none' && raw.credential_ref === undefined) {
    const what = kind === 'bearer' ? 'the bearer token' : 'the OAuth client secret';
    issues.push(
      draft(
        'invalid_field',
        [...at, 'credential_ref'],
        `nothing (the field is missing) with auth: ${kind}`,
        `credential_ref naming ${what}, e.g. credential_ref: ${raw.name}-token (read from ONCEPORT_CREDENTIAL_<REF>)`,
      ),
    );
  }
  if (kind !== 'oauth_client_credentials') {
    for (const field of OAUTH_ONLY) {
      if (raw[field] !== undefined) {
        issues.push(
          draft('invalid_field', [...at, field], `a ${field} with auth: ${kind}`, `${field} only with auth: oauth_client_credentials`),
        );
      }
    }
    return { kind };
  }
  return checkClientCredentials(raw, at, issues);
}

function checkClientCredentials(raw: RawHttpUpstream, at: readonly PathSegment[], issues: IssueDraft[]): McpUpstreamAuth {
  const missing = 'nothing (the field is missing) with auth: oauth_client_credentials';
  if (raw.issuer === undefined) {
    issues.push(
      draft(
        'invalid_field',
        [...at, 'issuer'],
        missing,
        "the authorization server's issuer identifier, an https URL (the only place the secret is sent)",
      ),
    );
  } else {
    checkWebUrl(raw.issuer, [...at, 'issuer'], { example: 'https://auth.example.com', query: false }, issues);
  }
  if (raw.client_id === undefined) {
    issues.push(draft('invalid_field', [...at, 'client_id'], missing, 'the OAuth client id the authorization server issued'));
  } else if (/\p{Cc}/u.test(raw.client_id)) {
    issues.push(draft('invalid_field', [...at, 'client_id'], 'a client id with a control character', 'an OAuth client id on one line'));
  }
  const scope = raw.scope?.trim() ?? '';
  if (raw.scope !== undefined && (scope === '' || !scope.split(/ +/).every((token) => SCOPE_TOKEN.test(token)))) {
    issues.push(
      draft(
        'invalid_field',
        [...at, 'scope'],
        describeValue(raw.scope),
        'OAuth scopes separated by spaces, each 1 to 128 characters of RFC 6749 §3.3 (no " or \\)',
      ),
    );
  }
  // The issuer as written, not normalised: it is compared with the authorization server's metadata
  // character for character (RFC 8414 §3.3), and `https://a.example` must not become `https://a.example/`.
  return { kind: 'oauth_client_credentials', issuer: raw.issuer ?? '', clientId: raw.client_id ?? '', scope: scope || null };
}
