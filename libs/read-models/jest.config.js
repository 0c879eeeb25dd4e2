module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'read-models',
  rootDir: __dirname,
  testTimeout: 60_000,
};
