import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The state directory is shared by processes (a test and the upstream it runs as a child), so every
 * write is one that a concurrent reader can never see half done: whole files are renamed into place,
 * and JSON-lines records are single `O_APPEND` writes of one line.
 */
export const STATE_FILES = {
  effects: 'effects.jsonl',
  behaviors: 'behaviors.jsonl',
  /** One empty file per consumed use of a behaviour: `<behaviour id>.<n>`, created exclusively. */
  consumed: 'consumed',
  tasks: 'tasks',
  catalog: 'catalog.json',
} as const;

export function statePath(stateDir: string, ...parts: string[]): string {
  return join(stateDir, ...parts);
}

export function ensureStateDir(stateDir: string): void {
  mkdirSync(join(stateDir, STATE_FILES.consumed), { recursive: true });
  mkdirSync(join(stateDir, STATE_FILES.tasks), { recursive: true });
}

export function writeJsonAtomic(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value)}\n`);
  renameSync(temporary, path);
}

export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function appendJsonLine(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, `${JSON.stringify(value)}\n`);
}

/** Every complete line; a last line still being written (no newline yet) is left for the next read. */
export function readJsonLines(path: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}
