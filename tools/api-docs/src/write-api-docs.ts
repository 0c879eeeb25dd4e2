import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DOCUMENT_PATHS, REPO_ROOT, generateDocuments } from './generate-documents';

/** `npm run docs:api`: regenerates docs/api/openapi.json and docs/api/asyncapi.json and says which changed. */
function main(): void {
  const documents = generateDocuments();
  for (const [kind, path] of Object.entries(DOCUMENT_PATHS) as [keyof typeof DOCUMENT_PATHS, string][]) {
    const file = join(REPO_ROOT, path);
    const before = readOrNull(file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, documents[kind]);
    process.stdout.write(`${path}: ${before === documents[kind] ? 'unchanged' : 'written'}\n`);
  }
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

main();
