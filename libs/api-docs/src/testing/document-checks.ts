import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = { readonly [key: string]: unknown };

/** Every local `$ref` of a document that points at nothing, as `at → ref`. */
export function unresolvedRefs(document: Json): string[] {
  const broken: string[] = [];
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((child, i) => walk(child, `${at}/${i}`));
    if (typeof node !== 'object' || node === null) return;
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string' && resolvePointer(document, child) === undefined) broken.push(`${at} → ${child}`);
      else walk(child, `${at}/${key}`);
    }
  };
  walk(document, '#');
  return broken;
}

/** `#/components/schemas/X` in a document, or undefined. Only local refs are ours. */
export function resolvePointer(document: Json, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

const DOCUMENT_ID = 'urn:onceport:api-document';

/**
 * Ajv validators for the schemas under `components.schemas` (and any other pointer), compiled in
 * the dialect the document declares: 2020-12 for OpenAPI 3.1, draft-07 for AsyncAPI 3.0.
 * Compiling is the check: a schema ajv cannot compile (a bad keyword value, a ref to nowhere) throws.
 */
export class DocumentSchemas {
  private readonly ajv: Ajv;

  constructor(document: Json, dialect: '2020-12' | 'draft-07') {
    // strict off: OpenAPI and AsyncAPI words (`example`, `x-…`) sit beside the schema keywords.
    this.ajv = dialect === '2020-12' ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID }, undefined, undefined, false);
  }

  /** A validator for `#/components/schemas/Name` or any pointer into the document. */
  validator(pointer: string): ValidateFunction {
    const validate = this.ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    return validate;
  }

  /** Validates a value and returns ajv's errors as `path message` lines (empty when it is valid). */
  errors(pointer: string, value: unknown): string[] {
    const validate = this.validator(pointer);
    return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
  }
}
