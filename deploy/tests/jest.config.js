module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'deploy-tests',
  rootDir: __dirname,
  testTimeout: 120_000,
  // The e2e suites start real processes; one at a time keeps a 2-core machine honest.
  maxWorkers: 1,
};
