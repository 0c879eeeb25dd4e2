module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'hostile-e2e',
  rootDir: __dirname,
  testTimeout: 120_000,
  // The suites start real processes; one at a time keeps a 2-core machine honest.
  maxWorkers: 1,
};
