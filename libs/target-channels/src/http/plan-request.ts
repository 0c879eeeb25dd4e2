import type { JsonValue } from '@onceport/contracts';
import type { HttpMethod } from '@onceport/domain';
import { failedBeforeSend, type FailedBeforeSend } from './http-outcome';
import { renderUrl } from './render-path';
import { requestHeaders, type CredentialPresentation } from './request-headers';

/** Everything needed to put one request on the wire, decided before any socket is touched. */
export interface RequestPlan {
  readonly origin: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | null;
}

export interface PlanInput {
  readonly origin: string;
  readonly method: HttpMethod;
  readonly pathTemplate: string;
  readonly body: 'json_arguments' | 'none';
  readonly staticHeaders: Readonly<Record<string, string>>;
  readonly arguments: Readonly<Record<string, JsonValue>>;
  /** Values only placeholders may use, e.g. `execution_id` in probe paths; never in a body. */
  readonly placeholderOnly: Readonly<Record<string, string>>;
  readonly credentialRef: string | null;
  readonly credential: string | null;
  readonly presentation: CredentialPresentation;
  readonly idempotency: { readonly header: string; readonly value: string } | null;
  readonly traceHeaders: Readonly<Record<string, string>>;
}

export function planRequest(input: PlanInput): RequestPlan | FailedBeforeSend {
  if (input.credentialRef !== null && input.credential === null) {
    return failedBeforeSend('missing_credential', `no credential was resolved for credential_ref "${input.credentialRef}"`, false);
  }
  const url = renderUrl(input.origin, input.pathTemplate, { ...input.arguments, ...input.placeholderOnly });
  if (isFailure(url)) return url;
  const jsonBody = input.body === 'json_arguments';
  const built = requestHeaders({
    staticHeaders: input.staticHeaders,
    traceHeaders: input.traceHeaders,
    presentation: input.presentation,
    credential: input.credential,
    idempotency: input.idempotency,
    jsonBody,
  });
  if (isFailure(built)) return built;
  const body = jsonBody ? Buffer.from(JSON.stringify(bodyArguments(input.arguments, url.used)), 'utf8') : null;
  return { origin: url.origin, method: input.method, path: url.path, headers: built.headers, body };
}

function bodyArguments(args: Readonly<Record<string, JsonValue>>, used: ReadonlySet<string>): Record<string, JsonValue> {
  const rest: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(args)) if (!used.has(name)) rest[name] = value;
  return rest;
}

export function isFailure<T extends object>(value: T | FailedBeforeSend): value is FailedBeforeSend {
  return (value as { kind?: unknown }).kind === 'failed_before_send';
}
