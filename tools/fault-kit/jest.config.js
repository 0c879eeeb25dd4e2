module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'fault-kit',
  rootDir: __dirname,
  testTimeout: 30_000,
  // The suites mostly wait (on timers, sockets, child processes), so they overlap well even on 2 cores.
  maxWorkers: 3,
};
