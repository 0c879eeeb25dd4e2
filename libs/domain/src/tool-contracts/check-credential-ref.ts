import { draft, type IssueDraft, type PathSegment } from './issue-path';

const CREDENTIAL_REF_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Token shapes of common providers; a contract file is the wrong place for any of them. */
const SECRET_SHAPES = [
  /^[sr]k_(live|test)_/,
  /^gh[pousr]_/,
  /^github_pat_/,
  /^xox[abeprs]-/,
  /^AKIA[0-9A-Z]{12,}/,
  /^eyJ[A-Za-z0-9_-]{10,}/,
  /^glpat-/,
  /^SG\./,
  /^AIza[0-9A-Za-z_-]{20,}/,
  /^-----BEGIN/,
];

/** A known provider token format: precise enough to apply to any plain value (an argv element, an env value). */
export function hasSecretShape(value: string): boolean {
  return SECRET_SHAPES.some((shape) => shape.test(value));
}

/**
 * A reference names a credential the dispatcher holds; it is stored in every canonical record,
 * so a value pasted here by mistake would be copied into the audit trail forever. Hence the
 * heuristics, and hence the value is never echoed back in the error.
 */
function looksLikeSecret(value: string): boolean {
  if (hasSecretShape(value)) return true;
  const mixed = /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value);
  return value.length >= 24 && mixed && !/[._-]/.test(value);
}

export function checkCredentialRef(value: string | undefined, at: readonly PathSegment[], issues: IssueDraft[]): string | null {
  if (value === undefined) return null;
  const expected = 'the name of a credential held by the dispatcher, e.g. deploy-api (letters, digits, . _ -; no spaces, ":" or "/")';
  if (looksLikeSecret(value)) {
    issues.push(
      draft(
        'secret_in_contract',
        at,
        'a value that looks like a secret (not shown)',
        `${expected}, never the secret itself: remove it from the file and rotate it`,
      ),
    );
  } else if (!CREDENTIAL_REF_PATTERN.test(value)) {
    // Not echoed either: "Bearer …" or "user:pass" are exactly the values this refuses.
    issues.push(draft('invalid_field', at, 'a value with spaces, ":", "/" or other characters (not shown)', expected));
  }
  return value;
}
