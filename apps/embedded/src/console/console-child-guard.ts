/**
 * Preloaded (`node -r`) into the console process `npm start` runs: when the start that made it
 * is gone — `kill -9`, a crash — its IPC channel closes, and the console stops too instead of
 * holding its port as an orphan. The console's own SIGTERM handling does the stopping.
 */
if (process.send) {
  process.once('disconnect', () => {
    process.kill(process.pid, 'SIGTERM');
    // A stop held up by an open live-update stream must not outlive its parent for long.
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
