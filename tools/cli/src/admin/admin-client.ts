import { CliError, EXIT, type ExitCode } from '../cli/exit-codes';

const TIMEOUT_MS = 30_000;

/**
 * JSON over HTTP to one Onceport admin API, with the admin key as a bearer token (the runs commands
 * also with an agent key). Problem details (RFC 9457) become a {@link ServiceProblem} carrying the
 * exit code their status means.
 */
export class AdminClient {
  constructor(
    private readonly service: string,
    private readonly baseUrl: URL,
    private readonly key: string,
  ) {}

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  private async request<T>(method: string, path: string, body?: Record<string, unknown>): Promise<T> {
    const url = new URL(path, this.baseUrl);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new CliError(EXIT.unreachable, `cannot reach the ${this.service} service at ${this.baseUrl.origin}: ${causeOf(error)}`);
    }
    const text = await response.text();
    if (!response.ok) throw this.problem(response.status, text);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(
        EXIT.unreachable,
        `the ${this.service} service answered ${method} ${url.pathname} with something that is not JSON`,
      );
    }
  }

  private problem(status: number, text: string): ServiceProblem {
    const { code, detail, body } = problemOf(status, text);
    return new ServiceProblem(exitCodeOf(status), `${this.service} service: ${detail} (${status} ${code})`, status, code, body);
  }
}

/** A service's refusal: the CLI's one-line error, with the status, the problem's code and its whole body for a command that shows more (a 409's list). */
export class ServiceProblem extends CliError {
  constructor(
    exitCode: ExitCode,
    message: string,
    readonly status: number,
    readonly code: string,
    readonly body: Readonly<Record<string, unknown>> | null,
  ) {
    super(exitCode, message);
  }
}

function exitCodeOf(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 400 || status === 422) return EXIT.usage;
  if (status >= 500) return EXIT.unreachable;
  return EXIT.failed;
}

/** `code` and `detail` of a problem+json body (RFC 9457); without `code`, the last segment of `type` (`https://onceport.dev/problems/body-too-large` → `body_too_large`). */
function problemOf(status: number, text: string): { code: string; detail: string; body: Record<string, unknown> | null } {
  try {
    const body = JSON.parse(text) as { code?: unknown; type?: unknown; detail?: unknown; title?: unknown } | null;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not a problem object');
    const code =
      typeof body.code === 'string'
        ? body.code
        : typeof body.type === 'string'
          ? body.type.split('/').pop()?.replaceAll('-', '_') || `http_${status}`
          : `http_${status}`;
    const detail = typeof body.detail === 'string' ? body.detail : typeof body.title === 'string' ? body.title : `HTTP ${status}`;
    return { code, detail, body: body as Record<string, unknown> };
  } catch {
    return { code: `http_${status}`, detail: text.trim().slice(0, 200) || `HTTP ${status}`, body: null };
  }
}

function causeOf(error: unknown): string {
  // Duck-typed, not instanceof: fetch's errors may come from another realm (a test VM context).
  const e = error as {
    name?: unknown;
    message?: unknown;
    cause?: { code?: unknown; message?: unknown; errors?: { code?: unknown }[] };
  } | null;
  if (e?.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = e?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (typeof code === 'string') return code;
  if (typeof cause?.message === 'string') return cause.message;
  return typeof e?.message === 'string' ? e.message : String(error);
}
