/**
 * An HTTP error as a value (RFC 9457 problem details): a stable code, a status, a title and a
 * sentence a human can act on. The filter writes it as `application/problem+json`.
 */
export class Problem extends Error {
  override readonly name = 'Problem';

  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }

  /** `type` is a URN, not a URL: nothing is served there, and the code alone identifies the problem. */
  toJSON(): { type: string; title: string; status: number; detail: string; code: string } {
    return { type: `urn:onceport:problem:${this.code}`, title: this.title, status: this.status, detail: this.detail, code: this.code };
  }
}
