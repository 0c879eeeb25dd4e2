module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'feature-authorization',
  rootDir: __dirname,
  passWithNoTests: true, // until the service lands
  testTimeout: 60_000,
};
