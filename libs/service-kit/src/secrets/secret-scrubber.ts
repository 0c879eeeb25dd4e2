const MASK = '[redacted]';

/**
 * Keeps every credential the dispatcher knows out of what it writes: log lines and failure reasons.
 * The HTTP channel already redacts the credential of its own exchange; this is the second line, for
 * text from anywhere else (an unexpected error, a library message). It knows the values configured
 * in the environment from the start and learns each credential read from a file when it is resolved.
 */
export class SecretScrubber {
  private readonly forms = new Set<string>();

  constructor(initial: Iterable<string> = []) {
    for (const secret of initial) this.remember(secret);
  }

  remember(secret: string): void {
    if (secret === '') return;
    this.forms.add(secret);
    this.forms.add(encodeURIComponent(secret));
    // As it reads inside a finished JSON line (quotes and backslashes escaped): a logger scrubs whole lines too.
    this.forms.add(JSON.stringify(secret).slice(1, -1));
  }

  scrub(text: string): string {
    let out = text;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  }
}
