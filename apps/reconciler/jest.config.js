module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'reconciler',
  rootDir: __dirname,
  testTimeout: 120_000,
};
