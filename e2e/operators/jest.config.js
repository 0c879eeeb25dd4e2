module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'operators-e2e',
  rootDir: __dirname,
  testTimeout: 120_000,
  // The suite starts real processes; one at a time keeps a 2-core machine honest.
  maxWorkers: 1,
};
