import type { JsonValue } from '@onceport/contracts';

export type { JsonValue };
export type JsonObject = { [key: string]: JsonValue };
