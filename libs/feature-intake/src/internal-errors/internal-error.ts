// The service kit's, one for every service; re-exported for intake's MCP and REST code that imports it from here.
export { type ErrorLog, internalErrorMessage, reportInternalError } from '@onceport/service-kit';
