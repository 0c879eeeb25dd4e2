/** Why the authorization server's metadata or keys could not be read (an operator's problem, not the caller's). */
export class OAuthFetchError extends Error {
  override readonly name = 'OAuthFetchError';
}

export interface FetchLimits {
  /** The whole exchange, connect to last byte. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** Metadata and key sets are a few KiB; these leave room for many keys, and none for a stuck or runaway server. */
export const OAUTH_FETCH_LIMITS: FetchLimits = { timeoutMs: 5_000, maxBytes: 256 * 1024 };

/**
 * GETs a JSON document within a time and a size. Redirects are refused: metadata and keys are read
 * from the very URL the issuer (or the operator) names, never from wherever a redirect points.
 *
 * @example const jwks = await fetchBoundedJson('https://auth.example.com/jwks', OAUTH_FETCH_LIMITS);
 */
export async function fetchBoundedJson(url: string, limits: FetchLimits): Promise<unknown> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'error', signal, headers: { accept: 'application/json' } });
  } catch (error) {
    throw new OAuthFetchError(`${url}: ${reasonOf(error, limits)}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new OAuthFetchError(`${url} answered HTTP ${response.status}, not 200`);
  }
  const text = await readAtMost(response, limits, url);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new OAuthFetchError(`${url} did not answer JSON`);
  }
}

async function readAtMost(response: Response, limits: FetchLimits, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limits.maxBytes) {
    await response.body?.cancel();
    throw new OAuthFetchError(`${url} answered ${declared} bytes, more than the ${limits.maxBytes} allowed`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const { done, value } = reader ? await reader.read() : { done: true, value: undefined };
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader?.cancel();
        throw new OAuthFetchError(`${url} answered more than the ${limits.maxBytes} bytes allowed`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof OAuthFetchError) throw error;
    throw new OAuthFetchError(`${url}: ${reasonOf(error, limits)}`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// Duck-typed, not instanceof: fetch's errors (a DOMException on timeout) may come from another realm.
function reasonOf(error: unknown, limits: FetchLimits): string {
  const { name, message, cause } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    cause?: { message?: unknown };
  };
  if (name === 'TimeoutError' || name === 'AbortError') return `no complete answer within ${limits.timeoutMs} ms`;
  const because = typeof cause?.message === 'string' ? `: ${cause.message}` : '';
  return `${typeof message === 'string' ? message : String(error)}${because}`.slice(0, 300);
}
