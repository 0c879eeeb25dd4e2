module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'feature-dispatcher',
  rootDir: __dirname,
  testTimeout: 60_000,
};
