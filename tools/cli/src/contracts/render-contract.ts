import { Document, Scalar, YAMLMap, YAMLSeq, isScalar } from 'yaml';
import type { ImportedContract, ImportedTool, ImportedUpstream } from './imported-contract';
import { describeSource } from './import-source';

export const TO_STRING = { lineWidth: 100, indent: 2, indentSeq: true } as const;

export const ROLES_COMMENT = ' choose identity / derived / generated for each; the line marked "guess" is a best guess';

/** The whole file: a header that says what to do next, the upstream, and every tool with its choices open. */
export function renderContract(contract: ImportedContract, importedAt: Date): string {
  const doc = new Document({});
  const root = doc.contents as YAMLMap;
  doc.commentBefore = [
    ` Imported from ${describeSource(contract.upstream.source)} on ${importedAt.toISOString()} by \`onceport contracts import\`.`,
    ' Every effect is left undeclared (the worst case: an unknown outcome goes to review) until you declare it.',
    ...contract.skipped.map((skip) => ` Not imported: ${skip.name}: ${skip.reason}.`),
  ].join('\n');
  root.add(doc.createPair('upstreams', new YAMLSeq()));
  (root.get('upstreams') as YAMLSeq).add(upstreamNode(doc, contract.upstream));
  const tools = new YAMLSeq();
  for (const tool of contract.tools) tools.add(toolNode(doc, contract.upstream.name, tool));
  root.add(doc.createPair('tools', tools));
  return doc.toString(TO_STRING);
}

/** Only the tools, as items of a `tools:` list (for appending to a file the operator owns). */
export function renderToolItems(upstream: string, tools: readonly ImportedTool[]): string {
  const doc = new Document({});
  const list = new YAMLSeq();
  for (const tool of tools) list.add(toolNode(doc, upstream, tool));
  (doc.contents as YAMLMap).add(doc.createPair('tools', list));
  // Drop the `tools:` line: what remains are the list's items, indented as under it.
  return doc.toString(TO_STRING).split('\n').slice(1).join('\n');
}

function upstreamNode(doc: Document, upstream: ImportedUpstream): YAMLMap {
  const { source } = upstream;
  const node =
    source.transport === 'stdio'
      ? (doc.createNode({ name: upstream.name, transport: 'stdio', command: source.command, args: [...source.args] }) as YAMLMap)
      : (doc.createNode({ name: upstream.name, transport: 'http', url: source.url.href }) as YAMLMap);
  const args = node.get('args');
  if (args instanceof YAMLSeq) args.flow = true;
  if (Object.keys(upstream.env).length > 0) node.add(doc.createPair('env', doc.createNode({ ...upstream.env })));
  if (upstream.credentialRef !== null) {
    if (upstream.credentialEnv !== null) node.add(doc.createPair('credential_env', upstream.credentialEnv));
    else node.add(doc.createPair('auth', 'bearer'));
    node.add(doc.createPair('credential_ref', upstream.credentialRef));
    const ref = node.items[node.items.length - 1];
    if (ref && isScalar(ref.value))
      ref.value.comment = ' the secret this import used is not written here: give the dispatcher this credential';
  }
  if (upstream.withheld.length > 0) node.comment = ` not written (secrets; one credential per upstream): ${upstream.withheld.join(', ')}`;
  return node;
}

function toolNode(doc: Document, upstream: string, tool: ImportedTool): YAMLMap {
  const node = new YAMLMap();
  node.add(doc.createPair('name', tool.name));
  node.add(doc.createPair('title', tool.title));
  const description = new Scalar(tool.description);
  if (tool.description.length > 60 || tool.description.includes('\n')) description.type = Scalar.BLOCK_FOLDED;
  node.add(doc.createPair('description', description));
  node.add(doc.createPair('channel', 'mcp'));
  const target = doc.createNode({ upstream, tool: tool.upstreamTool }) as YAMLMap;
  target.flow = true;
  node.add(doc.createPair('target', target));
  node.add(doc.createPair('arguments', doc.createNode(tool.arguments)));

  const roles = new YAMLMap();
  for (const guess of tool.roles) {
    const value = new Scalar(guess.role);
    value.comment = ` guess: ${guess.why}`;
    roles.add(doc.createPair(guess.argument, value));
  }
  const rolesPair = doc.createPair('roles', roles);
  if (tool.roles.length > 0) (rolesPair.key as Scalar).commentBefore = ROLES_COMMENT;
  node.add(rolesPair);
  node.comment = [` effect: undeclared. Upstream hints (shown, never trusted): ${tool.hints}`, ...taskProbeSuggestion(tool)].join('\n');
  return node;
}

/** The line that uncommented declares it, with why it is suggested. */
export const TASK_PROBE_SUGGESTION = ' probe: { kind: mcp_task }';

/**
 * A tool the upstream says runs as a task: `probe: { kind: mcp_task }` suggested, commented out like
 * every other guess (the operator chooses it; an import never does).
 */
function taskProbeSuggestion(tool: ImportedTool): string[] {
  if (tool.taskSupport === null) return [];
  const why =
    tool.taskSupport === 'required'
      ? 'the upstream runs this tool only as a task (taskSupport="required"): without this probe it is called plainly, which the upstream may refuse'
      : 'the upstream can run this tool as a task (taskSupport="optional")';
  return [
    ` suggestion: ${why}.`,
    ' Uncommented, the dispatcher asks for a task and an unknown outcome is settled by polling it (tasks/get):',
    TASK_PROBE_SUGGESTION,
  ];
}
