module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'execution-trace',
  rootDir: __dirname,
  testTimeout: 60_000,
};
