module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'feature-intake',
  rootDir: __dirname,
  passWithNoTests: true, // until the service lands
  testTimeout: 60_000,
};
