/** A refusal or failure the page shows as it came: the service's (or the console's) problem detail. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when any call finds the session gone (the page then shows the sign-in form). */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/**
 * The console service's API on this origin: the session cookie goes along by itself (the page never
 * sees the key), and every change carries the console's header.
 */
export async function api<T>(path: string, options: { method?: 'GET' | 'POST' | 'DELETE'; body?: unknown } = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-onceport-console'] = '1';
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`api/${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
  } catch {
    throw new ApiError(0, 'offline', 'The console service did not answer. Check your connection and try again.');
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const problem = (body ?? {}) as { code?: string; detail?: string; title?: string };
    const code = problem.code ?? `http_${response.status}`;
    if (response.status === 401) for (const listener of signedOutListeners) listener();
    throw new ApiError(response.status, code, problem.detail ?? problem.title ?? `The console answered ${response.status}.`);
  }
  return body as T;
}
