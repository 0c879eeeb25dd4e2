module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'http-channel',
  rootDir: __dirname,
  // The default 5 s leaves little over the channel's own 3 s timeouts on a loaded machine.
  testTimeout: 30_000,
};
