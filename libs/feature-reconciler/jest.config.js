module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'feature-reconciler',
  rootDir: __dirname,
  testTimeout: 60_000,
};
