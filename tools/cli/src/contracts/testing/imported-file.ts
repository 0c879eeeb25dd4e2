import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parse } from 'yaml';

/** The parts of an imported contract file a test looks at. */
export interface ImportedFile {
  readonly upstreams: Record<string, unknown>[];
  readonly tools: {
    name: string;
    title: string;
    description: string;
    channel: string;
    target: { upstream: string; tool: string };
    arguments: Record<string, unknown>;
    roles: Record<string, string>;
    effect?: unknown;
  }[];
}

export function parseImported(text: string): ImportedFile {
  return parse(text) as ImportedFile;
}

/** The comment lines of the file that belong to one tool (from its `- name:` to the next one). */
export function commentsOfTool(text: string, name: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === `- name: ${name}`);
  if (start < 0) return [];
  const end = lines.findIndex((line, index) => index > start && /^\s*- name: /.test(line));
  return lines.slice(start, end < 0 ? undefined : end).filter((line) => line.includes('#'));
}

/** The tools a stdio server lists, read with the v2 client directly (what the import must show). */
export async function listedDirectly(
  command: string,
  args: string[],
): Promise<{ name: string; inputSchema: unknown; annotations?: unknown }[]> {
  const client = new Client({ name: 'import-spec', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}
