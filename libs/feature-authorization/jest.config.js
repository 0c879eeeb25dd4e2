module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'feature-authorization',
  rootDir: __dirname,
  testTimeout: 60_000,
};
