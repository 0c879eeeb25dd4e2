/**
 * Children still alive when this process exits (a test that threw before its cleanup, a jest
 * worker torn down) get killed, so no nats-server, PostgreSQL or app outlives the run.
 * `exit` handlers must be synchronous: only `process.kill`, `spawnSync` and the like belong here.
 */
const liveTargets = new Map<object, () => void>();
let hooked = false;

export function trackLeftover(owner: object, killNow: () => void): void {
  liveTargets.set(owner, killNow);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const killNow of liveTargets.values()) killNow();
    });
  }
}

export function untrackLeftover(owner: object): void {
  liveTargets.delete(owner);
}
