import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ArgumentsSchema } from './tool-contract.types';

/**
 * Argument schemas are JSON Schema draft 2020-12 (the dialect MCP `inputSchema` documents).
 * Strict mode makes a misspelled keyword (`requried`, `fromat`) a load error instead of a
 * silently ignored constraint; `useDefaults` fills declared defaults so an omitted argument and
 * its explicit default validate, dispatch and fingerprint identically.
 */
export type ArgumentsAjv = Ajv2020;

export function createArgumentsAjv(): ArgumentsAjv {
  const ajv = new Ajv2020({
    allErrors: true,
    useDefaults: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    logger: false,
  });
  addFormats(ajv);
  return ajv;
}

// Keyed by the schema object so contracts stay plain data (serialisable for tools/list) while
// validation reuses the function compiled at load time.
const compiled = new WeakMap<ArgumentsSchema, ValidateFunction>();

export function rememberValidator(schema: ArgumentsSchema, validate: ValidateFunction): void {
  compiled.set(schema, validate);
}

/** The validator compiled at load time, or a fresh one for a contract that was copied since. */
export function validatorFor(schema: ArgumentsSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = createArgumentsAjv().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}
