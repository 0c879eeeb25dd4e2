import { checkCredentialRef, hasSecretShape } from './check-credential-ref';
import { ENV_NAME_PATTERN } from './defaults';
import { describeValue, draft, type IssueDraft, type PathSegment } from './issue-path';
import type { RawStdioUpstream } from './raw-mcp.schema';
import type { McpStdioUpstream } from './tool-contract.types';

type StdioFields = Omit<McpStdioUpstream, 'name' | 'transport' | 'protocol' | 'connectTimeoutMs'>;

/** Run without a shell: a name looked up on PATH, or an absolute path. */
const BARE_PROGRAM = /^[A-Za-z0-9_][A-Za-z0-9._+-]{0,254}$/;
const ABSOLUTE_PATH = /^\/\P{Cc}*$/u;
const MAX_ENV_ENTRIES = 64;
/** Variables whose name says they hold a secret: those come from credential_ref as credential_env. */
const SECRET_ENV_NAME = /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)$/i;
const ENV_NAME_EXPECTED = 'an environment variable name of letters, digits and _, not starting with a digit, e.g. FILES_TOKEN';
const VIA_CREDENTIAL = 'plain values only: a secret comes from credential_ref, delivered in the variable named by credential_env';

/** A local MCP server the dispatcher starts as a child process: its program, argv, environment and credential. */
export function checkStdioUpstream(raw: RawStdioUpstream, at: readonly PathSegment[], issues: IssueDraft[]): StdioFields {
  if (!BARE_PROGRAM.test(raw.command) && !ABSOLUTE_PATH.test(raw.command)) {
    issues.push(
      draft(
        'invalid_field',
        [...at, 'command'],
        describeValue(raw.command),
        'a program name found on PATH (e.g. node, npx) or an absolute path such as /usr/local/bin/mcp-server; it runs without a shell, so arguments go under args',
      ),
    );
  }
  const args = raw.args ?? [];
  args.forEach((arg, index) => {
    // `--token=ghp_…` as well as a bare token.
    if (hasSecretShape(arg) || hasSecretShape(arg.slice(arg.indexOf('=') + 1))) {
      issues.push(draft('secret_in_contract', [...at, 'args', index], 'a value that looks like a secret (not shown)', VIA_CREDENTIAL));
    } else if (arg.includes('\0')) {
      issues.push(draft('invalid_field', [...at, 'args', index], 'an argument with a NUL character', 'an argument without NUL'));
    }
  });
  const env = raw.env ?? {};
  checkEnv(env, raw.credential_env, at, issues);
  const credentialRef = checkCredentialRef(raw.credential_ref, [...at, 'credential_ref'], issues);
  checkCredentialEnv(raw, at, issues);
  if (raw.cwd !== undefined && !ABSOLUTE_PATH.test(raw.cwd)) {
    issues.push(draft('invalid_field', [...at, 'cwd'], describeValue(raw.cwd), 'an absolute directory path such as /srv/files'));
  }
  return { command: raw.command, args, env, credentialRef, credentialEnv: raw.credential_env ?? null, cwd: raw.cwd ?? null };
}

function checkEnv(env: Record<string, string>, credentialEnv: string | undefined, at: readonly PathSegment[], issues: IssueDraft[]): void {
  const names = Object.keys(env);
  if (names.length > MAX_ENV_ENTRIES) {
    issues.push(draft('invalid_field', [...at, 'env'], `${names.length} variables`, `at most ${MAX_ENV_ENTRIES} variables`));
  }
  for (const [name, value] of Object.entries(env)) {
    const where = [...at, 'env', name];
    if (!ENV_NAME_PATTERN.test(name)) {
      issues.push(draft('invalid_field', where, `the variable name ${describeValue(name)}`, ENV_NAME_EXPECTED));
    } else if (name === credentialEnv) {
      issues.push(
        draft('invalid_field', where, `a static value for ${name}, the credential_env`, 'no static value: the credential is set there'),
      );
    } else if (SECRET_ENV_NAME.test(name) || hasSecretShape(value)) {
      issues.push(draft('secret_in_contract', where, `a secret-carrying variable ${name} (value not shown)`, VIA_CREDENTIAL));
    } else if (value.includes('\0')) {
      issues.push(draft('invalid_field', where, 'a value with a NUL character', 'a value without NUL'));
    }
  }
}

/** The credential of a stdio server reaches it through one environment variable: both fields, or neither. */
function checkCredentialEnv(raw: RawStdioUpstream, at: readonly PathSegment[], issues: IssueDraft[]): void {
  const where = [...at, 'credential_env'];
  if (raw.credential_env === undefined) {
    if (raw.credential_ref !== undefined) {
      issues.push(
        draft(
          'invalid_field',
          where,
          'nothing (the field is missing)',
          'credential_env: the environment variable the server reads its credential from, e.g. GITHUB_PERSONAL_ACCESS_TOKEN (a stdio server gets the credential only there)',
        ),
      );
    }
  } else if (!ENV_NAME_PATTERN.test(raw.credential_env)) {
    issues.push(draft('invalid_field', where, describeValue(raw.credential_env), ENV_NAME_EXPECTED));
  } else if (raw.credential_ref === undefined) {
    issues.push(
      draft(
        'invalid_field',
        where,
        'a credential_env without credential_ref',
        'credential_ref naming the credential this variable receives, or no credential_env',
      ),
    );
  }
}
