const MASK = '[redacted]';

/** Keeps one secret out of every text and body the channel hands back. */
export interface Redactor {
  contains(text: string): boolean;
  redact(text: string): string;
  redactBuffer(bytes: Buffer): { readonly bytes: Buffer; readonly redacted: boolean };
}

/** The forms a credential may take in an error or echo: as sent, and URL-encoded. */
export function redactorFor(credential: string | null): Redactor {
  const forms = credential ? [...new Set([credential, encodeURIComponent(credential)])] : [];
  return {
    contains: (text) => forms.some((form) => text.includes(form)),
    redact: (text) => forms.reduce((out, form) => out.split(form).join(MASK), text),
    redactBuffer: (bytes) => {
      let out = bytes;
      for (const form of forms) out = replaceAll(out, Buffer.from(form, 'utf8'));
      return { bytes: out, redacted: out !== bytes };
    },
  };
}

function replaceAll(bytes: Buffer, needle: Buffer): Buffer {
  let at = bytes.indexOf(needle);
  if (at === -1) return bytes;
  const mask = Buffer.from(MASK, 'utf8');
  const parts: Buffer[] = [];
  let from = 0;
  while (at !== -1) {
    parts.push(bytes.subarray(from, at), mask);
    from = at + needle.length;
    at = bytes.indexOf(needle, from);
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}
