// What the dispatcher's end-to-end tests stand on. (The feature lib has its own copies for its
// integration tests: an app may not import another project's test folder.)
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@onceport/contracts';
import { type ExecutionCommand, type ToolContract, newExecutionId, recordTarget } from '@onceport/domain';
import { acceptCommand } from '@onceport/domain/testing';
import { type CommandHandler, type Queryable, executionStream } from '@onceport/event-store';

const FIXTURES = join(__dirname, '../../../libs/domain/test/fixtures');

export const DEPLOY_ARGUMENTS: Readonly<Record<string, JsonValue>> = { project: 'shop', environment: 'production', version: '2.0.1' };

/** The demo contracts with every origin pointed at `origin`, and the SSH demo, in a directory of their own. */
export async function writeDemoContracts(origin: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'onceport-dispatcher-e2e-contracts-'));
  const demo = await readFile(join(FIXTURES, 'contracts/demo.yaml'), 'utf8');
  await writeFile(join(dir, 'demo.yaml'), demo.replace(/origin: https:\/\/\S+/g, `origin: ${origin}`));
  await copyFile(join(FIXTURES, 'contracts-ssh/ops.yaml'), join(dir, 'ops.yaml'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Accepted and authorized through the repository, as intake and authorization will have done it. */
export async function seedAuthorized(
  commands: CommandHandler,
  contract: ToolContract,
  args: Readonly<Record<string, JsonValue>>,
  traceparent: string,
): Promise<string> {
  const executionId = newExecutionId(Date.now(), randomBytes(10));
  const sample = acceptCommand();
  if (sample.type !== 'AcceptExecution') throw new Error('acceptCommand() should build an AcceptExecution');
  const target = recordTarget(contract).target;
  const accept: ExecutionCommand = acceptCommand({
    executionId,
    tool: contract.name,
    channel: contract.channel,
    arguments: args,
    effectClass: contract.effect,
    record: {
      ...sample.data.record,
      tool: contract.name,
      channel: contract.channel,
      target,
      credential_ref: contract.credentialRef,
      arguments: args,
    },
  });
  const context = { causationId: 'test:e2e', actor: 'agent:e2e', traceparent };
  await commands.handle(executionStream(executionId), (_loaded, now) => ({ ...accept, metadata: { now } }), context);
  await commands.handle(
    executionStream(executionId),
    (_loaded, now) => ({ type: 'AuthorizeExecution', data: { basis: 'policy', policyVersion: 'e2e' }, metadata: { now } }),
    context,
  );
  return executionId;
}

export function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

/**
 * Every table (schema.table) with a row whose text form holds `needle`, as given or as bytea hex
 * (how a bytea column prints): the events with all their columns, results, inbox, checkpoints.
 */
export async function tablesHolding(db: Queryable, needle: string): Promise<string[]> {
  const tables = await db.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const hex = Buffer.from(needle, 'utf8').toString('hex');
  const holding: string[] = [];
  for (const { schema, name } of tables.rows) {
    const found = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${schema}"."${name}" AS t WHERE strpos(t::text, $1) > 0 OR strpos(t::text, $2) > 0`,
      [needle, hex],
    );
    if (Number(found.rows[0]?.n) > 0) holding.push(`${schema}.${name}`);
  }
  return holding;
}
