import type { Transport } from '@modelcontextprotocol/client';

/** One watched call: the raw result its response carried, once it came. */
export interface TapWatch {
  /** The raw `result` of the watched call's response (undefined before it came, or if it was an error). */
  captured(): unknown;
  dispose(): void;
}

type Message = { id?: string | number; method?: string; params?: Record<string, unknown>; result?: unknown };

/**
 * Sees the raw result of chosen `tools/call` requests before the client decodes it. Needed for task
 * answers: the v2 client (2.4.0) has no task runtime — it refuses a 2026-07-28 `resultType: "task"`
 * answer (UnsupportedResultType) and does not type a 2025-11-25 `{ task }` one — so the task id would
 * be lost with the error. Installed on the transport before `connect` (the client chains the
 * `onmessage` it finds), keyed by the `_meta` value each call carries (its execution id). Reads only;
 * every message still reaches the client unchanged.
 */
export class ResponseTap {
  private readonly watches = new Map<string, { result: unknown }>();
  private readonly requests = new Map<string | number, string>();

  constructor(private readonly keyMeta: string) {}

  install(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.noteRequest(message as Message);
      return send(message, options);
    };
    transport.onmessage = (message) => this.noteResponse(message as Message);
  }

  /** Watches the next `tools/call` whose `_meta[keyMeta]` is `key`; one watch per key at a time. */
  watch(key: string): TapWatch {
    const slot = { result: undefined as unknown };
    this.watches.set(key, slot);
    return {
      captured: () => slot.result,
      dispose: () => {
        if (this.watches.get(key) === slot) this.watches.delete(key);
        for (const [id, watched] of this.requests) if (watched === key) this.requests.delete(id);
      },
    };
  }

  private noteRequest(message: Message): void {
    if (message.method !== 'tools/call' || message.id === undefined) return;
    const meta = message.params?.['_meta'];
    const key = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[this.keyMeta] : undefined;
    if (typeof key === 'string' && this.watches.has(key)) this.requests.set(message.id, key);
  }

  private noteResponse(message: Message): void {
    if (message.id === undefined || message.method !== undefined) return;
    const key = this.requests.get(message.id);
    if (key === undefined) return;
    this.requests.delete(message.id);
    const slot = this.watches.get(key);
    if (slot && message.result !== undefined) slot.result = message.result;
  }
}
