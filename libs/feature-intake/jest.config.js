module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'feature-intake',
  rootDir: __dirname,
  testTimeout: 60_000,
};
