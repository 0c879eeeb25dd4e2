// Entry point of the stdio upstream (see stdioUpstreamCommand): TEST_UPSTREAM_STATE_DIR=<dir> node -r @swc-node/register libs/test-upstream/src/stdio-main.ts
import { runStdioUpstream } from './stdio-upstream';

try {
  runStdioUpstream(process.env);
} catch (error) {
  process.stderr.write(`test-upstream: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
