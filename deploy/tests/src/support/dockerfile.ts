import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './workspace';

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

export interface Stage {
  readonly name: string;
  readonly from: string;
  readonly instructions: readonly Instruction[];
}

/** The Dockerfile as stages of instructions (continuations joined, comments dropped). */
export function readDockerfile(path = join(WORKSPACE_ROOT, 'Dockerfile')): { preamble: Instruction[]; stages: Stage[] } {
  const logical: string[] = [];
  let pending = '';
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(pending + line);
    pending = '';
  }
  const preamble: Instruction[] = [];
  const stages: { name: string; from: string; instructions: Instruction[] }[] = [];
  for (const line of logical.filter((l) => l !== '')) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() };
    if (instruction.keyword === 'FROM') {
      const [, image = '', name = ''] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(instruction.args) ?? [];
      stages.push({ name: name || String(stages.length), from: image, instructions: [] });
    } else if (stages.length === 0) preamble.push(instruction);
    else stages[stages.length - 1]?.instructions.push(instruction);
  }
  return { preamble, stages };
}

/** The JSON (exec) form of CMD/ENTRYPOINT/HEALTHCHECK CMD, or null for the shell form. */
export function execForm(args: string): string[] | null {
  const json = args.replace(/^(?:--\S+\s+)*(?:CMD\s+)?/, '');
  if (!json.startsWith('[')) return null;
  return JSON.parse(json) as string[];
}

/** The HEALTHCHECK's node program (the `-e` argument of the runtime stage's HEALTHCHECK). */
export function healthcheckProgram(): string {
  const { stages } = readDockerfile();
  const healthcheck = stages[stages.length - 1]?.instructions.find((i) => i.keyword === 'HEALTHCHECK');
  return execForm(healthcheck?.args ?? '')?.[2] ?? '';
}
