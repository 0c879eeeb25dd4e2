import type { UpstreamCatalog } from './state/catalog';

/** A tool as `tools/list` shows it (the MCP `Tool` shape, JSON Schemas as plain objects). */
export interface UpstreamToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations: Readonly<Record<string, boolean | string>>;
}

const key = { type: 'string', minLength: 1, maxLength: 200, description: 'What the effect is about; effects are counted by key' };
const effectOutput = {
  type: 'object',
  properties: { effect_id: { type: 'string' }, key: { type: 'string' }, replayed: { type: 'boolean' } },
  required: ['effect_id', 'key', 'replayed'],
};
const effectHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const UPSTREAM_TOOLS: readonly UpstreamToolDefinition[] = [
  {
    name: 'record_effect',
    title: 'Record an effect',
    description: 'Applies one effect: appends it to the effect ledger. Not idempotent: every call that reaches it is one more effect.',
    inputSchema: {
      type: 'object',
      properties: { key, note: { type: 'string', maxLength: 2000, description: 'Free text stored with the effect' } },
      required: ['key'],
    },
    outputSchema: effectOutput,
    annotations: { title: 'Record an effect', ...effectHints },
  },
  {
    name: 'read_status',
    title: 'Count effects',
    description: 'Read-only: how many effects the ledger holds for a key.',
    inputSchema: { type: 'object', properties: { key }, required: ['key'] },
    outputSchema: {
      type: 'object',
      properties: { key: { type: 'string' }, count: { type: 'integer' } },
      required: ['key', 'count'],
    },
    annotations: { title: 'Count effects', readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'slow_effect',
    title: 'Record an effect, answer late',
    description: 'Applies one effect at once, then answers after ms milliseconds.',
    inputSchema: {
      type: 'object',
      properties: { key, ms: { type: 'integer', minimum: 0, maximum: 600_000, description: 'How long to wait before answering' } },
      required: ['key', 'ms'],
    },
    outputSchema: effectOutput,
    annotations: { title: 'Record an effect, answer late', ...effectHints },
  },
  {
    name: 'maybe_task',
    title: 'Record an effect, answer with a task',
    description:
      'Applies one effect, then answers with a task (io.modelcontextprotocol/tasks) when the client declared the extension; otherwise with the result.',
    inputSchema: { type: 'object', properties: { key }, required: ['key'] },
    annotations: { title: 'Record an effect, answer with a task', ...effectHints },
  },
];

/** The tools as the catalog control says to show them now. */
export function listedTools(catalog: UpstreamCatalog): UpstreamToolDefinition[] {
  const hidden = new Set(catalog.hiddenTools ?? []);
  return UPSTREAM_TOOLS.filter((tool) => !hidden.has(tool.name)).map((tool) => {
    const extra = catalog.extraArguments?.[tool.name];
    if (!extra) return tool;
    return { ...tool, inputSchema: { ...tool.inputSchema, properties: { ...tool.inputSchema.properties, ...extra } } };
  });
}

/** One page of `tools/list`: the cursor is the offset of the page, as text. */
export function toolsPage(catalog: UpstreamCatalog, cursor: string | undefined): { tools: UpstreamToolDefinition[]; nextCursor?: string } {
  const all = listedTools(catalog);
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(offset) || offset < 0 || offset > all.length) throw new RangeError(`invalid cursor ${JSON.stringify(cursor)}`);
  const size = catalog.pageSize ?? all.length;
  const end = offset + size;
  return end < all.length ? { tools: all.slice(offset, end), nextCursor: String(end) } : { tools: all.slice(offset) };
}
