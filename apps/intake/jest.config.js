module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'intake',
  rootDir: __dirname,
  testTimeout: 120_000,
};
