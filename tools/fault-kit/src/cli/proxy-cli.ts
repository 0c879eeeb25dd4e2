import { parseArgs } from 'node:util';
import { parseHostPort } from '../net/loopback';
import { describeFault } from '../proxy/fault';
import { type FaultProxy, startFaultProxy } from '../proxy/fault-proxy';
import { type CommandResult, runCommandLoop } from './command-loop';
import { faultFromFlags, faultFromWords } from './fault-words';
import { USAGE, UsageError } from './usage';

/** `proxy --listen H:P --upstream H:P [fault flags]`: runs until quit or a signal. */
export async function proxyCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      listen: { type: 'string' },
      upstream: { type: 'string' },
      latency: { type: 'string' },
      direction: { type: 'string' },
      blackhole: { type: 'boolean' },
      'reset-after-bytes': { type: 'string' },
      'half-open': { type: 'boolean' },
      refuse: { type: 'boolean' },
    },
  });
  if (!values.upstream) throw new UsageError('proxy needs --upstream HOST:PORT');
  const listen = parseHostPort(values.listen ?? '127.0.0.1:0', '--listen');
  const upstream = parseHostPort(values.upstream, '--upstream');
  const fault = faultFromFlags(values);
  const proxy = await startFaultProxy({ listenHost: listen.host, listenPort: listen.port, upstream });
  if (fault) proxy.setFault(fault);
  process.stdout.write(`fault proxy listening on ${proxy.address} -> ${upstream.host}:${upstream.port} (${describeFault(fault)})\n`);
  await runCommandLoop(
    (words) => Promise.resolve(proxyAction(proxy, words)),
    () => proxy.stop(),
  );
}

function proxyAction(proxy: FaultProxy, words: string[]): CommandResult {
  const [command, argument] = words;
  const fault = faultFromWords(words);
  if (fault) {
    proxy.setFault(fault);
    return `fault: ${describeFault(fault)}`;
  }
  switch (command) {
    case 'clear':
      proxy.clear();
      return 'fault: none';
    case 'drop_existing':
      return `dropped ${proxy.dropExisting(argument === 'reset' ? 'reset' : 'close')} connection(s)`;
    case 'status':
      return status(proxy);
    case 'help':
      return USAGE;
    case 'quit':
      return 'quit';
    default:
      throw new UsageError(`unknown command "${words.join(' ')}" (type help)`);
  }
}

function status(proxy: FaultProxy): string {
  const bytes = proxy.bytes();
  const totals = proxy.totals();
  return [
    `fault: ${describeFault(proxy.fault())}`,
    `connections: ${proxy.connections().length} open, ${totals.accepted} accepted, ${totals.refused} refused`,
    `bytes: ${bytes.toUpstream} to upstream, ${bytes.toClient} to clients, ${bytes.dropped} dropped`,
  ].join('\n');
}
