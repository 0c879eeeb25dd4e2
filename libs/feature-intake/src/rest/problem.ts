import type { ServerResponse } from 'node:http';

/** RFC 9457 problem details: what went wrong, for a program and for a person. */
export function sendProblem(res: ServerResponse, status: number, type: string, title: string, detail: string, extensions: Record<string, unknown> = {}): void {
  res
    .writeHead(status, { 'Content-Type': 'application/problem+json' })
    .end(JSON.stringify({ type: `https://onceport.dev/problems/${type}`, title, status, detail, ...extensions }));
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}
