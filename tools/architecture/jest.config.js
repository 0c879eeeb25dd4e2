module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'architecture',
  rootDir: __dirname,
  // One run of the real eslint CLI over the workspace's type-aware config.
  testTimeout: 180_000,
};
