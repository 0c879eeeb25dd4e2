import { request } from 'undici';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: unknown;
  readonly ms: number;
}

/** One real HTTP call (a fresh connection each time, so a dropped socket affects only this call). */
export async function call(
  url: string,
  method: 'GET' | 'POST' | 'HEAD',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const started = Date.now();
  const response = await request(url, {
    method,
    reset: true,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    json: text ? (JSON.parse(text) as unknown) : null,
    ms: Date.now() - started,
  };
}

export const post = (url: string, body: unknown, key?: string): Promise<Answer> =>
  call(url, 'POST', body, key === undefined ? {} : { 'idempotency-key': key });
