import type { ServerResponse } from 'node:http';

// Problem details (RFC 9457) are the service kit's, one format for every service.
export { sendProblem } from '@onceport/service-kit';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}
