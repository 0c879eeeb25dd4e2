module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'test-upstream',
  rootDir: __dirname,
  testTimeout: 60_000,
};
