// The baseline proxy as its own process: node -r @swc-node/register tools/bench/src/baseline/proxy-main.ts <target-url>
import { startPassThroughProxy } from './pass-through-proxy';

const targetUrl = process.argv[2];
if (!targetUrl) {
  process.stderr.write('usage: proxy-main.ts <target-url>\n');
  process.exit(64);
}
startPassThroughProxy(targetUrl).then(
  (proxy) => {
    process.stdout.write(`pass-through proxy listening on ${proxy.url}\n`);
    process.once('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
  },
  (error: unknown) => {
    process.stderr.write(`pass-through proxy: ${String(error)}\n`);
    process.exit(1);
  },
);
