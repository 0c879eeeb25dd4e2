// For tests only: checks both documents share (refs resolve, schemas compile and validate).
export { DocumentSchemas, resolvePointer, unresolvedRefs } from './testing/document-checks';
