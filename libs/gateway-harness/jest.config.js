module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'gateway-harness',
  rootDir: __dirname,
  testTimeout: 180_000,
};
