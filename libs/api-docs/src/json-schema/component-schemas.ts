import { z } from 'zod';

/** A JSON Schema object as the documents carry it. */
export type JsonSchema = { readonly [key: string]: unknown };

/** A zod schema with the name it is published under in `components.schemas`. */
export interface NamedSchema {
  readonly name: string;
  readonly schema: z.ZodType;
  /** Request bodies are what a client sends (`input`); everything else is what is produced (`output`). */
  readonly io?: 'input' | 'output';
}

/** `RunOpenRequest` → a {@link NamedSchema}; the usage line of every schema file. */
export function named(name: string, schema: z.ZodType, io: 'input' | 'output' = 'output'): NamedSchema {
  return { name, schema, io };
}

/**
 * The `components.schemas` of one document, made from zod schemas with `z.toJSONSchema`. A schema's
 * own `$defs` (zod emits one for a recursive value such as JsonValue) are hoisted next to it and its
 * local refs rewritten, because `#/$defs/…` inside a component would resolve against the document
 * root. Identical hoisted definitions are kept once.
 *
 * @example const schemas = new ComponentSchemas('#/components/schemas/'); const ref = schemas.ref(named('Problem', Problem));
 */
export class ComponentSchemas {
  private readonly byName = new Map<string, JsonSchema>();
  private readonly byContent = new Map<string, string>();
  private readonly sources = new Map<string, z.ZodType>();

  /** `draft-2020-12` for OpenAPI 3.1; `draft-7` for AsyncAPI 3.0's default schema format. */
  constructor(
    private readonly refBase: string,
    private readonly dialect: 'draft-2020-12' | 'draft-7' = 'draft-2020-12',
  ) {}

  /** `{ $ref }` to the named schema, converting it on first use; a second schema under a taken name is refused. */
  ref(entry: NamedSchema): JsonSchema {
    const known = this.sources.get(entry.name);
    if (known !== undefined && known !== entry.schema) throw new Error(`api-docs: two different schemas are named ${entry.name}`);
    if (known === undefined) {
      this.sources.set(entry.name, entry.schema);
      this.byName.set(entry.name, this.convert(entry));
    }
    return { $ref: `${this.refBase}${entry.name}` };
  }

  /** Every schema converted so far, by name, sorted so the committed file does not churn. */
  all(): Record<string, JsonSchema> {
    return Object.fromEntries([...this.byName.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  private convert(entry: NamedSchema): JsonSchema {
    const raw = z.toJSONSchema(entry.schema, { target: this.dialect, io: entry.io ?? 'output', unrepresentable: 'any' });
    const {
      $schema: _dialect,
      $defs: defs2020,
      definitions: defs7,
      ...body
    } = raw as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
      definitions?: Record<string, JsonSchema>;
    };
    const $defs = defs2020 ?? defs7;
    const renamed = new Map<string, string>();
    for (const [key, def] of Object.entries($defs ?? {})) {
      const content = JSON.stringify(def);
      const existing = this.byContent.get(content);
      const name = existing ?? `${entry.name}_${key.replace(/[^A-Za-z0-9.-]/g, '')}`;
      renamed.set(key, name);
      if (!existing) this.byContent.set(content, name);
    }
    const rewrite = (value: JsonSchema): JsonSchema => this.rewriteRefs(value, entry.name, renamed);
    for (const [key, def] of Object.entries($defs ?? {})) {
      const name = renamed.get(key) ?? key;
      if (!this.byName.has(name)) this.byName.set(name, rewrite(def));
    }
    return rewrite(body);
  }

  private rewriteRefs(value: JsonSchema, self: string, renamed: ReadonlyMap<string, string>): JsonSchema {
    const walk = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(walk);
      if (typeof node !== 'object' || node === null) return node;
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) {
        if (key === '$ref' && typeof child === 'string') out[key] = this.target(child, self, renamed);
        else out[key] = walk(child);
      }
      return out;
    };
    return walk(value) as JsonSchema;
  }

  private target(ref: string, self: string, renamed: ReadonlyMap<string, string>): string {
    if (ref === '#') return `${this.refBase}${self}`;
    const local = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
    if (local === undefined) return ref;
    return `${this.refBase}${renamed.get(local) ?? local}`;
  }
}

/** A small schema written in place (a parameter's): no `$schema`, and no `$defs` allowed. */
export function inlineSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...body } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' });
  if ('$defs' in body) throw new Error('api-docs: an inline schema may not have $defs; name it instead');
  return body;
}
