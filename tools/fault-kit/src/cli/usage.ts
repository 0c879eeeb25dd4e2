export const USAGE = `Onceport fault kit: inject network and process faults on loopback.

Usage: node -r @swc-node/register tools/fault-kit/src/cli.ts <command> [options]

Commands:
  proxy     --listen HOST:PORT --upstream HOST:PORT   a TCP proxy that injects faults
            [--latency MS [--direction to_upstream|to_client|both]] [--blackhole [--direction ...]]
            [--reset-after-bytes N] [--half-open] [--refuse]        (at most one starting fault)
  nats      [--port N] [--store-dir DIR]               a private JetStream nats-server on 127.0.0.1
  postgres  [--port N]                                 a private PostgreSQL cluster on 127.0.0.1
                                                       (trust auth; data under /tmp, removed on exit)

Hosts must be loopback (127.0.0.0/8, ::1, localhost).

While it runs, type a command and Enter:
  proxy:     latency MS [DIRECTION] | blackhole [DIRECTION] | reset_after_bytes N | half_open
             | refuse | clear | drop_existing [reset] | status
  nats:      kill | pause | resume | restart | restart_wiped | status
  postgres:  stop_immediate | stop | start | restart [smart|fast|immediate] | status
  any:       help | quit          (Ctrl-C or SIGTERM also stop everything cleanly)

Examples:
  ... cli.ts proxy --listen 127.0.0.1:15432 --upstream 127.0.0.1:5432 --latency 50
  ... cli.ts nats --port 14222
Exit status: 0 done, 1 failed, 2 bad usage.`;

/** A mistake in how the CLI was called: exit status 2 with the message. */
export class UsageError extends Error {
  override name = 'UsageError';
}
