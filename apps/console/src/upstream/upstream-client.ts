/** The services the console talks to, over HTTP only (apps never import each other). */
export type ServiceName = 'intake' | 'authorization' | 'reconciler';

export interface UpstreamAnswer {
  readonly status: number;
  /** The service's JSON (an answer or a problem); null when it sent none. */
  readonly body: unknown;
}

/** A service that did not answer (down, unreachable, too slow, or an answer too large): the console says which. */
export class UpstreamUnavailableError extends Error {
  override readonly name = 'UpstreamUnavailableError';
  constructor(
    readonly service: ServiceName,
    readonly why: string,
  ) {
    super(`the ${service} service did not answer: ${why}`);
  }
}

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/**
 * Calls the services' admin and REST APIs with the signed-in operator's credential as the bearer
 * token: the console holds no authority of its own, each service decides what the operator may do.
 */
export class UpstreamClient {
  constructor(
    private readonly urls: Readonly<Record<ServiceName, string>>,
    private readonly timeoutMs = 15_000,
  ) {}

  async call(service: ServiceName, method: 'GET' | 'POST', path: string, credential: string, body?: unknown): Promise<UpstreamAnswer> {
    let response: Response;
    try {
      response = await fetch(`${this.urls[service]}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${credential}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw new UpstreamUnavailableError(service, causeOf(error));
    }
    const text = await readBounded(service, response);
    let parsed: unknown = null;
    if (text.trim() !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        throw new UpstreamUnavailableError(service, `answered ${response.status} with a body that is not JSON`);
      }
    }
    return { status: response.status, body: parsed };
  }
}

async function readBounded(service: ServiceName, response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let read: Awaited<ReturnType<typeof reader.read>>;
    try {
      read = await reader.read();
    } catch (error) {
      throw new UpstreamUnavailableError(service, causeOf(error));
    }
    if (read.done) break;
    size += read.value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new UpstreamUnavailableError(service, `its answer passed ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A short, bounded reason (never the URL's credentials: there are none in it, the key travels in a header). */
function causeOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? cause.code : null;
    if (error.name === 'TimeoutError') return 'timed out';
    return (code ?? error.message).slice(0, 200);
  }
  return 'unknown error';
}
