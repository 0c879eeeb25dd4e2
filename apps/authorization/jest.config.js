module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'authorization',
  rootDir: __dirname,
  testTimeout: 120_000,
};
