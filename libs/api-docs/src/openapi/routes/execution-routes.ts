import { z } from 'zod';
import {
  AgentAnswer,
  ExecutionRequest,
  ExecutionWithTimeline,
  IssuedAgentProcess,
  ProtectedResourceMetadata,
} from '../schemas/agent-schemas';
import { type RouteDoc, problem } from '../route-doc';

const ANSWER_HEADERS = { Location: '`/v1/executions/{execution_id}`' };

/** The agent's door over REST (intake): calls, their state, agent process ids, OAuth metadata, and /mcp. */
export const executionRoutes: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/executions',
    services: ['intake'],
    tag: 'Executions',
    operationId: 'callTool',
    summary: 'Call a tool: one execution per intent',
    description:
      "A retry with the same fingerprint, actor and intent scope inside the tool's correlation window attaches to the execution it repeats (`attached: true`) and is answered from its state; the target sees one effect. Intake waits up to `wait_ms` (or ONCEPORT_ANSWER_WAIT_MS) for the outcome.",
    caller: 'agent',
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        description:
          'IETF httpapi draft: the same key with another payload → 422; while the first is in flight → 409; after completion → the first completed response, byte for byte, with `Idempotent-Replayed: true`. 1–255 visible ASCII characters.',
        schema: z.string().min(1).max(255),
      },
      {
        name: 'Onceport-Agent-Process',
        in: 'header',
        description: 'An id issued by `POST /v1/agent-processes` to this actor; absent: the actor stands for its process.',
        schema: z.string().min(1).max(128),
      },
      {
        name: 'traceparent',
        in: 'header',
        description: "W3C trace context: the execution's spans become children of the caller's.",
        schema: z.string(),
      },
    ],
    body: { description: 'The call.', required: true, schema: ExecutionRequest },
    responses: {
      '200': {
        description: 'Answered: the outcome, or a state in which waiting longer would not change the answer.',
        body: AgentAnswer,
        headers: ANSWER_HEADERS,
      },
      '202': {
        description: 'Accepted, outcome not known within the wait: ask `GET /v1/executions/{id}`; do not call again.',
        body: AgentAnswer,
        headers: ANSWER_HEADERS,
      },
      '400': problem('Malformed JSON, or an `Onceport-Agent-Process` intake never issued (`unknown-agent-process`).'),
      '401': problem("No or wrong key, or an actor claim naming anyone but the key's actor."),
      '403': problem("A token narrowed to other tools, an agent process issued to another actor, or another actor's run."),
      '404': problem('The run named without a trigger does not exist (`run-not-found`).'),
      '409': problem(
        'Idempotency-Key in flight, a run refusal (`trigger-differs`, `attempt-not-started`…), or a refused deliberate repeat.',
      ),
      '413': problem('Body over ONCEPORT_MAX_BODY_BYTES.'),
      '422': problem(
        'Out of bounds (`invalid-request`, `errors[]`), unknown tool, arguments against the contract, or an Idempotency-Key reused with another payload.',
      ),
      '429': problem("Over the actor's limits; `Retry-After` says when."),
      '500': problem('Internal error, with a `correlation_id`.'),
    },
  },
  {
    method: 'get',
    path: '/v1/executions/{id}',
    services: ['intake'],
    tag: 'Executions',
    operationId: 'getExecution',
    summary: "An execution's state and timeline (the owning actor only)",
    caller: 'agent',
    parameters: [{ name: 'id', in: 'path', required: true, description: 'The execution id (`exe_…`).', schema: z.string() }],
    responses: {
      '200': { description: 'The answer as of now, with every event of the execution.', body: ExecutionWithTimeline },
      '401': problem("No or wrong key, or the execution is another actor's."),
      '404': problem('No such execution.'),
      '500': problem('Internal error, with a `correlation_id`.'),
    },
  },
  {
    method: 'post',
    path: '/v1/agent-processes',
    services: ['intake'],
    tag: 'Executions',
    operationId: 'issueAgentProcess',
    summary: 'Issue an agent process id for a runtime',
    description: 'No body is needed. Send the id as `Onceport-Agent-Process` on each call; a session grant a human gives belongs to it.',
    caller: 'agent',
    responses: {
      '201': { description: 'Issued: 256 random bits, bound to the actor.', body: IssuedAgentProcess },
      '401': problem('No or wrong key.'),
    },
  },
  {
    method: 'get',
    path: '/.well-known/oauth-protected-resource',
    services: ['intake'],
    tag: 'OAuth',
    operationId: 'protectedResourceMetadata',
    summary: 'RFC 9728 protected resource metadata',
    description: 'Answered only when the actors file has an `oauth:` section.',
    caller: 'none',
    responses: {
      '200': { description: 'Where the authorization server is.', body: ProtectedResourceMetadata },
      '404': problem('OAuth is not configured.'),
    },
  },
  {
    method: 'get',
    path: '/.well-known/oauth-protected-resource/{suffix}',
    services: ['intake'],
    tag: 'OAuth',
    operationId: 'protectedResourceMetadataForPath',
    summary: "RFC 9728 metadata with the resource's path appended (§3.1)",
    caller: 'none',
    parameters: [
      {
        name: 'suffix',
        in: 'path',
        required: true,
        description: "The resource's path (e.g. `mcp`); may span segments.",
        schema: z.string(),
      },
    ],
    responses: {
      '200': { description: 'Where the authorization server is.', body: ProtectedResourceMetadata },
      '404': problem('OAuth is not configured, or the path names another resource.'),
    },
  },
  ...(['post', 'get', 'delete'] as const).map((method): RouteDoc => ({
    method,
    path: '/mcp',
    services: ['intake'],
    tag: 'MCP',
    operationId: `mcp${method[0]?.toUpperCase()}${method.slice(1)}`,
    summary: `MCP Streamable HTTP (${method.toUpperCase()})`,
    description:
      'JSON-RPC per the Model Context Protocol (2026-07-28 stateless; 2025-11-25 and 2025-06-18 with `Mcp-Session-Id`). Not described here: see the MCP specification and README "Calling it".',
    caller: 'agent',
    anyMethod: true,
    responses: {
      '200': { description: 'A JSON-RPC response or an SSE stream.' },
      '401': { description: 'No or wrong key (JSON-RPC error body).' },
      '403': { description: 'A bad Host or Origin (`-32000`).' },
      '404': { description: 'An ended, expired or unknown session (2025 era).' },
    },
  })),
];
