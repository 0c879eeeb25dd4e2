import { join, resolve } from 'node:path';

/** The workspace root, where `-r @swc-node/register` resolves. */
export const WORKSPACE_ROOT = resolve(__dirname, '../../../..');

/** Arguments to run a TypeScript file of this kit with node and @swc-node/register. */
export function tsNodeArgs(file: string, ...args: string[]): string[] {
  return ['-r', '@swc-node/register', join(resolve(__dirname, '..'), file), ...args];
}
