export { HttpChannel, type HttpChannelOptions, type ProbeAnswer, type SendInput } from './http-channel';
export type {
  FailedBeforeSend,
  FailedBeforeSendCode,
  HttpOutcome,
  ObservedResponse,
  UnknownCode,
  UnknownOutcome,
} from './http-outcome';
export type { ProbeResult, ProbeVerdict } from './probe-verdict';
export { judgeProbe } from './probe-verdict';
export type { CredentialPresentation } from './request-headers';
export { renderUrl, type RenderedUrl } from './render-path';
