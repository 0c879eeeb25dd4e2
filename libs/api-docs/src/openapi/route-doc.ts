import { type z } from 'zod';
import { type NamedSchema } from '../json-schema/component-schemas';

/** The four services; the embedded start (`npm start`) serves all of them in one process. */
export const SERVICES = ['intake', 'authorization', 'dispatcher', 'reconciler'] as const;
export type ServiceName = (typeof SERVICES)[number];

export type HttpMethod = 'get' | 'post' | 'delete';

/** Who may call a route: the `security` of its operation. */
export type Caller = 'none' | 'agent' | 'admin' | 'agent_or_admin';

export interface ParameterDoc {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly description: string;
  readonly required?: boolean;
  readonly schema: z.ZodType;
}

export interface ResponseDoc {
  readonly description: string;
  /** A JSON body; `problem` is RFC 9457 `application/problem+json`; `text` a plain-text body. */
  readonly body?: NamedSchema | 'problem' | 'text';
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One route as the document describes it, written next to nothing but its words: the drift test
 * holds it against the route Nest actually registers (method, path, serving service).
 */
export interface RouteDoc {
  readonly method: HttpMethod;
  /** OpenAPI style: `/v1/runs/{id}`. */
  readonly path: string;
  readonly services: readonly ServiceName[];
  readonly tag: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly caller: Caller;
  readonly parameters?: readonly ParameterDoc[];
  readonly body?: { readonly description: string; readonly required: boolean; readonly schema: NamedSchema };
  readonly responses: Readonly<Record<string, ResponseDoc>>;
  /** The code registers the path for every method (`@All()`): the documented methods are the ones that answer. */
  readonly anyMethod?: boolean;
}

/** A problem response: the RFC 9457 body every service answers errors with. */
export function problem(description: string): ResponseDoc {
  return { description, body: 'problem' };
}
