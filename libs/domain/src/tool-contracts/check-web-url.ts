import { describeValue, draft, type IssueDraft, type PathSegment } from './issue-path';

/** Hosts where cleartext crosses no network; as for OAuth URLs in actors.yaml (libs/config). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Query parameters that carry credentials: those come from credential_ref, never from YAML. */
const CREDENTIAL_PARAM = /token|secret|password|passwd|api[-_]?key|access[-_]?key|^auth|^sig(nature)?$|^key$/i;

export interface WebUrlRules {
  /** Shown in the expectation, e.g. https://mcp.example.com/mcp. */
  readonly example: string;
  /** False for identifiers such as an OAuth issuer, which never carry one. */
  readonly query: boolean;
}

/**
 * An absolute http(s) URL the dispatcher sends a credential or a tool call to: https, or http on a
 * loopback host only (tests, a sidecar); no user:password, no credential in the query, no fragment.
 * Returns the WHATWG form (lower-cased host, default port dropped) so one URL has one spelling in
 * the fingerprint, or null after pushing the issue.
 */
export function checkWebUrl(text: string, at: readonly PathSegment[], rules: WebUrlRules, issues: IssueDraft[]): string | null {
  const noQuery = rules.query ? '' : ', no ?query';
  const expected = `an absolute https URL such as ${rules.example} (http only on a loopback host: localhost, 127.0.0.1, [::1]${noQuery}; no #fragment)`;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url) {
    issues.push(draft('invalid_field', at, describeValue(text), expected));
    return null;
  }
  if (url.username || url.password) {
    issues.push(
      draft('secret_in_contract', at, 'a URL with user:password (not shown)', `${expected}; credentials belong in credential_ref`),
    );
    return null;
  }
  const credentialParam = [...url.searchParams.keys()].find((key) => CREDENTIAL_PARAM.test(key));
  if (credentialParam !== undefined) {
    issues.push(
      draft(
        'secret_in_contract',
        at,
        `a URL with the query parameter ${JSON.stringify(credentialParam)} (value not shown)`,
        `${expected}; credentials belong in credential_ref`,
      ),
    );
    return null;
  }
  const cleartextAllowed = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if ((url.protocol !== 'https:' && !cleartextAllowed) || text.includes('#') || (!rules.query && text.includes('?'))) {
    issues.push(draft('invalid_field', at, describeValue(text), expected));
    return null;
  }
  return url.href;
}
