module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ssh-channel',
  rootDir: __dirname,
  // A real sshd is started (and installed from Debian's packages on a fresh machine) by the tests.
  testTimeout: 180_000,
};
