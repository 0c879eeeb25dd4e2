import { HTTP_DEFAULTS } from './defaults';
import { parseDuration } from './duration';
import { describeValue, draft, type IssueDraft, type PathSegment } from './issue-path';
import { checkTemplate, type TemplateRules } from './check-template';
import { HEADER_NAME_PATTERN, type RawHttpTool } from './raw-tool-contract.schema';
import type { HttpTarget } from './tool-contract.types';

/** Headers that carry credentials: those come from credential_ref at dispatch, never from YAML. */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$|token|secret|password|passwd|api[-_]?key|auth/i;
/** Headers the HTTP client owns; a static value would corrupt framing or routing. */
const RESERVED_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive'];

export function checkHttpTarget(
  raw: RawHttpTool['target'],
  at: readonly PathSegment[],
  rules: TemplateRules,
  issues: IssueDraft[],
): HttpTarget {
  const origin = normaliseOrigin(raw.origin, [...at, 'origin'], issues);
  checkTemplate(raw.path, [...at, 'path'], rules, issues);
  const bodyless = raw.method === 'GET' || raw.method === 'HEAD';
  if (bodyless && raw.body === 'json_arguments') {
    issues.push(
      draft(
        'invalid_field',
        [...at, 'body'],
        `"json_arguments" with method ${raw.method}`,
        `body: none for GET and HEAD (they carry no body)`,
      ),
    );
  }
  const headers = raw.headers ?? {};
  for (const [name, value] of Object.entries(headers)) {
    const where = [...at, 'headers', name];
    if (!HEADER_NAME_PATTERN.test(name)) {
      issues.push(
        draft('invalid_field', where, `header name ${JSON.stringify(name)}`, 'an HTTP header name (letters, digits, - and a few symbols)'),
      );
    } else if (CREDENTIAL_HEADER.test(name)) {
      issues.push(
        draft(
          'secret_in_contract',
          where,
          'a credential-carrying header (value not shown)',
          'no credentials in headers: name the credential in credential_ref and the dispatcher adds it',
        ),
      );
    } else if (RESERVED_HEADERS.includes(name.toLowerCase())) {
      issues.push(draft('invalid_field', where, `the ${name} header`, `no ${name}: the HTTP client sets it`));
    } else if (raw.idempotency_header && name.toLowerCase() === raw.idempotency_header.toLowerCase()) {
      issues.push(
        draft(
          'invalid_field',
          where,
          `a static value for the idempotency header ${name}`,
          'no static value: the execution id is sent there per call',
        ),
      );
    } else if (/[\r\n\0]/.test(value)) {
      issues.push(draft('invalid_field', where, 'a value with a line break', 'a single-line header value'));
    }
  }
  return {
    origin: origin ?? raw.origin,
    method: raw.method,
    path: raw.path,
    body: raw.body ?? (bodyless ? 'none' : 'json_arguments'),
    headers,
    timeoutMs: raw.timeout ? (parseDuration(raw.timeout) ?? 0) : HTTP_DEFAULTS.timeoutMs,
    maxResponseBytes: raw.max_response_bytes ?? HTTP_DEFAULTS.maxResponseBytes,
    idempotencyHeader: raw.idempotency_header ?? null,
  };
}

/**
 * Agents never choose URLs (DESIGN.md §9): the contract pins scheme, host and port, and the
 * WHATWG form (lower-cased host, default port dropped) keeps one origin from having two spellings
 * in the fingerprint.
 */
function normaliseOrigin(text: string, at: readonly PathSegment[], issues: IssueDraft[]): string | null {
  const expected = 'an absolute http(s) origin such as https://api.example.com (no path, query or fragment — put the path in target.path)';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    issues.push(draft('invalid_field', at, describeValue(text), expected));
    return null;
  }
  if (url.username || url.password) {
    issues.push(
      draft('secret_in_contract', at, 'an origin with user:password (not shown)', `${expected}; credentials belong in credential_ref`),
    );
    return null;
  }
  const bare = url.pathname === '/' && !/[?#]/.test(text) && !/^[a-z]+:\/\/[^/]*\/./i.test(text);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !bare) {
    issues.push(draft('invalid_field', at, describeValue(text), expected));
    return null;
  }
  return url.origin;
}
