module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'target-channels',
  rootDir: __dirname,
  // The SSH specs start a real sshd (installed from Debian's packages on a fresh machine); the HTTP
  // ones need more than the default 5 s over the channel's own 3 s timeouts on a loaded machine.
  testTimeout: 180_000,
};
