import { parseArgs } from 'node:util';

export interface SoakOptions {
  readonly minutes: number;
  /** Calls per second; null: 70 % of the rate calibrated on this installation first. */
  readonly ratePerSecond: number | null;
  readonly loadShare: number;
  readonly calibrateSeconds: number;
  readonly calibrateCallers: number;
  readonly replicas: number;
  readonly faultEverySeconds: number;
  /** How long a killed service replica or NATS stays down before it is started again. */
  readonly downSeconds: number;
  /** After the load: how long executions may take to settle before what is left counts as stuck. */
  readonly drainSeconds: number;
  readonly outName: string;
  readonly note: string;
}

export const SOAK_USAGE = `usage: npm run soak -- [--minutes 10] [--rate N | --share 0.7] [--fault-every 45] [--out soak] [--note "what else ran"]
  Two replicas of each service, a private PostgreSQL and nats-server; a nemesis kills and restarts
  each replica, nats-server and PostgreSQL (immediate mode) while agents call at a fixed rate.`;

export class SoakUsageError extends Error {}

export function readSoakOptions(argv: readonly string[]): SoakOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      minutes: { type: 'string' },
      rate: { type: 'string' },
      share: { type: 'string' },
      'fault-every': { type: 'string' },
      out: { type: 'string' },
      note: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) throw new SoakUsageError('');
  const minutes = positive('--minutes', values.minutes ?? '10', 0.5, 600);
  return {
    minutes,
    ratePerSecond: values.rate === undefined ? null : positive('--rate', values.rate, 0.1, 10_000),
    loadShare: positive('--share', values.share ?? '0.7', 0.01, 1),
    calibrateSeconds: 30,
    calibrateCallers: 64,
    replicas: 2,
    faultEverySeconds: positive('--fault-every', values['fault-every'] ?? '45', 10, 3600),
    downSeconds: 3,
    drainSeconds: 300,
    outName: /^[a-z0-9-]{1,40}$/.test(values.out ?? 'soak') ? (values.out ?? 'soak') : badName(values.out ?? ''),
    note: (values.note ?? '').slice(0, 500),
  };
}

function positive(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new SoakUsageError(`${flag}: expected a number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

function badName(name: string): never {
  throw new SoakUsageError(`--out: expected lowercase letters, digits and dashes (at most 40), got ${JSON.stringify(name.slice(0, 60))}`);
}
