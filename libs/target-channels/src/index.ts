export { HttpChannel, type HttpChannelOptions, type ProbeAnswer, type SendInput } from './http/http-channel';
export type {
  FailedBeforeSend,
  FailedBeforeSendCode,
  HttpOutcome,
  ObservedResponse,
  UnknownCode,
  UnknownOutcome,
} from './http/http-outcome';
export type { ProbeResult, ProbeVerdict } from './http/probe-verdict';
export { judgeProbe } from './http/probe-verdict';
export type { CredentialPresentation } from './http/request-headers';
export { renderUrl, type RenderedUrl } from './http/render-path';
export {
  SshChannel,
  type SshChannelOptions,
  type SshSendInput,
  type MarkerProbe,
  classifyMarkedRun,
  classifyBareRun,
} from './ssh/ssh-channel';
export type { SshOutcome, SshObserved, SshFailedBeforeSend, SshFailedBeforeSendCode, SshUnknown, SshUnknownCode } from './ssh/ssh-outcome';
export type { MarkerReport, CapturedOutput } from './ssh/marker-report';
export { outputDocument, type OutputFacts } from './ssh/output-document';
export { MARKER_WRAPPER } from './ssh/marker-wrapper';
export { REMOTE_COMMAND, buildMarkerScript, buildBareScript } from './ssh/build-script';
export { shellQuote } from './ssh/shell-quote';
export { renderArgv, type RenderedArgv } from './ssh/render-argv';
export { CredentialResolver, MissingCredentialError } from './credentials/credential-resolver';
export { credentialsEnvShape } from './credentials/credentials-env';
export { TargetChannels } from './target-channels';
export { McpChannel, EXECUTION_ID_META, type McpSendInput } from './mcp/mcp-channel';
export { upstreamDrift, type UpstreamDrift, type UpstreamTool } from './mcp/upstream-drift';
export type {
  McpOutcome,
  McpObserved,
  McpFailedBeforeSend,
  McpFailedBeforeSendCode,
  McpUnknown,
  McpUnknownCode,
  McpTaskProbe,
} from './mcp/mcp-outcome';
export { TASKS_EXTENSION } from './mcp/mcp-task-wire';
