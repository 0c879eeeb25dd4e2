module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'console',
  rootDir: __dirname,
  testTimeout: 180_000,
  // The browser test starts the four services, the console and a chromium: one file at a time.
  maxWorkers: 1,
};
