export type {
  ApprovalPolicy,
  ArgumentDerivation,
  ArgumentSpec,
  ArgumentsSchema,
  HttpMethod,
  HttpProbe,
  HttpTarget,
  HttpToolContract,
  JsonSchemaNode,
  McpHttpUpstream,
  McpProbe,
  McpProtocolChoice,
  McpStdioUpstream,
  McpTarget,
  McpToolContract,
  McpUpstream,
  McpUpstreamAuth,
  DerivationKind,
  Normalization,
  SshHostKey,
  SshProbe,
  SshTarget,
  SshToolContract,
  ToolContract,
} from './tool-contract.types';
export { ToolContractError, contractIssue, type ContractIssue, type ContractIssueCode } from './tool-contract-error';
export { parseToolContracts } from './parse-tool-contracts';
export { mergeToolContracts } from './merge-tool-contracts';
export { validateArguments, type ArgumentIssue, type ArgumentsValidation } from './validate-arguments';
export { normalizeArgument } from './normalize-argument';
export { deriveArgument, normalizedUrl } from './derive-argument';
export { parseTemplate, type ParsedTemplate, type TemplatePart } from './template';
export { parseDuration, formatDuration, DURATION_PATTERN } from './duration';
export {
  DEFAULT_CORRELATION_WINDOW_MS,
  HTTP_DEFAULTS,
  MCP_DEFAULTS,
  MCP_TOOL_NAME_PATTERN,
  SSH_DEFAULTS,
  TOOL_NAME_PATTERN,
  UPSTREAM_NAME_PATTERN,
} from './defaults';
export { readYaml, type YamlSource, type YamlSyntaxProblem } from './yaml-source';
export { formatPath, valueAt, type PathSegment } from './issue-path';
