import type { IdleRound } from '../scenarios/idle';
import type { BrokerCost } from '../cpu/broker-cost';
import type { DatabaseCost } from '../cpu/database-cost';
import type { OverheadRound } from '../scenarios/overhead';
import type { ThroughputRound } from '../scenarios/throughput';
import type { StormRound } from '../scenarios/duplicate-storm';
import type { GrowthLevel } from '../scenarios/growth';
import type { AcrossRounds } from '../stats/summary';

export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGb: number;
  readonly node: string;
  readonly postgres: string;
  readonly nats: string;
  readonly loadAverageStart: readonly number[];
  readonly loadAverageEnd: readonly number[];
  /** What else ran on the machine meanwhile (stated by whoever started the run). */
  readonly note: string;
}

export interface OverheadSection {
  /** `services`: the four services as processes over JetStream; `embedded`: \`npm start\`, one process, in-process delivery, its own PostgreSQL. */
  readonly path: 'services' | 'embedded';
  /** JetStream publish-acks counted in the durable minimum (0 on the embedded path: it has none). */
  readonly acksOnPath: number;
  readonly callsPerRound: number;
  readonly rounds: readonly OverheadRound[];
  readonly p50: { readonly direct: AcrossRounds; readonly proxy: AcrossRounds; readonly onceport: AcrossRounds };
  readonly p99: { readonly direct: AcrossRounds; readonly proxy: AcrossRounds; readonly onceport: AcrossRounds };
  readonly ratioP50: {
    readonly onceportOverDirect: AcrossRounds;
    readonly proxyOverDirect: AcrossRounds;
    readonly onceportOverProxy: AcrossRounds;
  };
  readonly ratioP99: { readonly onceportOverDirect: AcrossRounds; readonly onceportOverProxy: AcrossRounds };
  readonly commitP50: AcrossRounds;
  readonly publishAckP50: AcrossRounds;
  readonly durableMinimumMs: AcrossRounds;
  readonly addedP50Ms: AcrossRounds;
  /** The goal's figure: added p50 ÷ durable minimum (goal ≤ 1.5). */
  readonly addedOverMinimum: AcrossRounds;
  readonly addedOverProxyOverMinimum: AcrossRounds;
  /**
   * The goal's figure for a gateway that added to the MCP layer nothing but its durable steps:
   * (proxy p50 − direct p50 + durable minimum) ÷ durable minimum. Above the goal, no gateway whose
   * MCP layer costs what the proxy's does meets it on this machine. Absent in reports before round
   * 25b, as is floorSlackMs; the report shows the floor only with both.
   */
  readonly floorOverMinimum?: AcrossRounds;
  /** What the goal leaves beyond that floor for hops, reads and code, ms (negative: the floor is above the goal). */
  readonly floorSlackMs?: AcrossRounds;
  /** Median (and spread over calls) of each hop of the Onceport calls, from the events' timestamps. */
  readonly hops: Record<string, AcrossRounds>;
}

export interface ThroughputLevel {
  readonly agents: number;
  readonly rounds: readonly ThroughputRound[];
  readonly executionsPerSecond: AcrossRounds;
  readonly commitsPerSecond: AcrossRounds;
  readonly ceilingPerSecond: AcrossRounds;
  readonly fractionOfCeiling: AcrossRounds;
  /** Calls/s through the pass-through proxy with the same agents, nothing durable: what Onceport cannot beat. */
  readonly floorPerSecond: AcrossRounds;
  /** Median share of a core of the proxy, the target and the load generator during the floor's rounds. */
  readonly floorCpu: Record<string, number>;
  /** Median share of a core per process over the rounds. */
  readonly cpu: Record<string, number>;
  /** Median cores busy on the whole machine during the rounds (everyone's work). */
  readonly machineBusyCores: number;
  readonly duplicateEffects: number;
  readonly missingEffects: number;
  readonly failures: number;
  /** PostgreSQL's work per execution in the level's last round (null: no pg_stat_statements). */
  readonly database: DatabaseCost | null;
  /** NATS's messages per execution in the level's last round (null: not counted). */
  readonly broker: BrokerCost | null;
}

export interface ProfileSummary {
  readonly process: string;
  /** What the profile covers. */
  readonly scope: string;
  readonly top: readonly { readonly fn: string; readonly where: string; readonly selfPercent: number }[];
}

export interface BenchReport {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly mode: 'quick' | 'full';
  readonly machine: MachineInfo;
  /** Each process's CPU with no traffic (null: not run). */
  readonly idle: IdleRound | null;
  readonly overhead: OverheadSection | null;
  /** The same measurement against \`npm start\` (null: not run). */
  readonly embedded?: OverheadSection | null;
  readonly throughput: readonly ThroughputLevel[];
  readonly storm: readonly StormRound[];
  readonly growth: readonly GrowthLevel[];
  /** Why the growth scenario stopped early, if it did. */
  readonly growthError?: string | null;
  /** A CPU profile summary per service (empty when none was written). */
  readonly profiles: readonly ProfileSummary[];
}
