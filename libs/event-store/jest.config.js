module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'event-store',
  rootDir: __dirname,
  testTimeout: 60_000,
};
