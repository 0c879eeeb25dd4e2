export { SshChannel, type SshChannelOptions, type SshSendInput, type MarkerProbe, classifyMarkedRun, classifyBareRun } from './ssh-channel';
export type { SshOutcome, SshObserved, SshFailedBeforeSend, SshFailedBeforeSendCode, SshUnknown, SshUnknownCode } from './ssh-outcome';
export type { MarkerReport, CapturedOutput } from './marker-report';
export { outputDocument, type OutputFacts } from './output-document';
export { MARKER_WRAPPER } from './marker-wrapper';
export { REMOTE_COMMAND, buildMarkerScript, buildBareScript } from './build-script';
export { shellQuote } from './shell-quote';
export { renderArgv, type RenderedArgv } from './render-argv';
