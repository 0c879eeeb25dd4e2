import type { CliIo } from '../cli/cli-io';
import { println } from '../cli/cli-io';

/** Rate reporting on stderr (stdout may be the data), so a large store shows it is moving. */
export class Progress {
  private readonly startedAt = process.hrtime.bigint();

  constructor(
    private readonly io: CliIo,
    private readonly verb: string,
    private readonly quiet: boolean,
  ) {}

  seconds(): number {
    return Number(process.hrtime.bigint() - this.startedAt) / 1e9;
  }

  rate(events: number): number {
    const seconds = this.seconds();
    return seconds > 0 ? Math.round(events / seconds) : events;
  }

  report = (events: number): void => {
    if (!this.quiet)
      println(
        this.io.stderr,
        `${this.verb} ${events.toLocaleString('en-US')} events (${this.rate(events).toLocaleString('en-US')} events/s)`,
      );
  };
}
