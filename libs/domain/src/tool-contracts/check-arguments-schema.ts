import type { ErrorObject } from 'ajv';
import { ARGUMENT_NAME_PATTERN, EXECUTION_ID_PLACEHOLDER } from './defaults';
import { rememberValidator, type ArgumentsAjv } from './arguments-ajv';
import { describeValue, draft, valueAt, type IssueDraft, type PathSegment } from './issue-path';
import type { RawArgumentsSchema } from './raw-tool-contract.schema';
import type { ArgumentsSchema } from './tool-contract.types';

/**
 * Fills the object-level defaults, checks names, and compiles the schema once, at load time.
 * Returns the filled schema even when it is invalid, so role and placeholder checks still run
 * and the operator sees every problem at once.
 */
export function checkArgumentsSchema(
  raw: RawArgumentsSchema | undefined,
  at: readonly PathSegment[],
  ajv: ArgumentsAjv,
  issues: IssueDraft[],
): ArgumentsSchema {
  const schema = {
    ...withoutKnownDialect(raw),
    type: 'object',
    properties: raw?.properties ?? {},
    required: raw?.required ?? [],
    // Default false: an argument nobody declared has no role, so it could not be fingerprinted.
    additionalProperties: raw?.additionalProperties ?? false,
  } as ArgumentsSchema;

  for (const name of Object.keys(schema.properties)) {
    if (!ARGUMENT_NAME_PATTERN.test(name)) {
      issues.push(
        draft(
          'invalid_arguments_schema',
          [...at, 'properties', name],
          JSON.stringify(name),
          'an argument name of letters, digits and _ (starting with a letter or _), at most 64 characters',
        ),
      );
    } else if (name === EXECUTION_ID_PLACEHOLDER) {
      issues.push(
        draft(
          'invalid_arguments_schema',
          [...at, 'properties', name],
          '"execution_id"',
          'another name: execution_id is reserved for the gateway-assigned execution id',
        ),
      );
    }
  }
  schema.required.forEach((name, index) => {
    if (!(name in schema.properties)) {
      issues.push(
        draft(
          'invalid_arguments_schema',
          [...at, 'required', index],
          JSON.stringify(name),
          `a declared property (one of ${Object.keys(schema.properties).join(' | ') || 'none declared'})`,
        ),
      );
    }
  });

  if (!ajv.validateSchema(schema)) {
    issues.push(...metaSchemaIssues(ajv.errors ?? [], schema, at));
    return schema;
  }
  try {
    rememberValidator(schema, ajv.compile(schema));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    issues.push(
      draft(
        'invalid_arguments_schema',
        at,
        `a schema that does not compile (${reason})`,
        'a JSON Schema (draft 2020-12) using only known keywords and formats',
      ),
    );
  }
  return schema;
}

/** One issue per offending location; the meta-schema reports an `anyOf` several times over. */
function metaSchemaIssues(errors: ErrorObject[], schema: ArgumentsSchema, at: readonly PathSegment[]): IssueDraft[] {
  const seen = new Set<string>();
  const out: IssueDraft[] = [];
  for (const error of errors) {
    if (seen.has(error.instancePath)) continue;
    seen.add(error.instancePath);
    const path = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s): PathSegment => (/^[0-9]+$/.test(s) ? Number(s) : s));
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
    const detail = allowed ? `${error.message ?? ''}: ${allowed.map(String).join(' | ')}` : (error.message ?? 'valid');
    out.push(
      draft(
        'invalid_arguments_schema',
        [...at, ...path],
        describeValue(valueAt(schema, path)),
        `a valid JSON Schema (draft 2020-12): ${detail}`,
      ),
    );
  }
  return out;
}

/**
 * MCP servers built on zod-to-json-schema stamp `"$schema": "…draft-07/schema#"` on their input
 * schemas (an imported contract copies it). The keywords such schemas use mean the same in draft
 * 2020-12, so the marker of either dialect is dropped and the schema read as 2020-12; any other
 * `$schema` stays, and the compiler names it.
 */
const KNOWN_DIALECTS = /^https?:\/\/json-schema\.org\/(draft-07\/schema#?|draft\/2020-12\/schema)$/;

function withoutKnownDialect(raw: RawArgumentsSchema | undefined): RawArgumentsSchema | undefined {
  if (!raw || typeof raw['$schema'] !== 'string' || !KNOWN_DIALECTS.test(raw['$schema'])) return raw;
  const { $schema: _dialect, ...rest } = raw;
  return rest as RawArgumentsSchema;
}
