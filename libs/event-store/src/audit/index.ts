export {
  ChainVerifier,
  verifyChains,
  type BrokenLink,
  type BrokenLinkProblem,
  type ChainedEvent,
  type StreamLink,
  type VerificationReport,
  type VerifyOptions,
} from './chain-verifier';
export { readChainsFromDatabase } from './read-chains-from-database';
export {
  EXPORT_FORMAT,
  MalformedExportLineError,
  parseExportLine,
  type ExportHeader,
  type ExportLine,
  type ExportSummary,
} from './export-format';
export { anchorOf } from './export-summary';
export { exportLines, type ExportRange } from './write-export';
export { verifyExport, type ExportBrokenLink, type ExportVerificationReport, type VerifyExportOptions } from './verify-export';
export { verifyCheckpoint } from './verify-checkpoint';
export { readExportSummary, readLines } from './read-export-file';
