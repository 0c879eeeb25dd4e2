import { type IncomingMessage } from 'node:http';
import { type Admin } from '@onceport/config';
import { currentTraceContext, requestIdOrFresh } from '@onceport/service-kit';
import { type EventCause } from '@onceport/event-store';

export function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An admin request as the cause of the events it appends: who, which request, which trace. */
export function adminCause(request: IncomingMessage, admin: Admin): EventCause {
  return { causationId: `admin:${requestIdOrFresh(headerOf(request, 'x-request-id'))}`, actor: admin.id, ...currentTraceContext() };
}
