module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'ssh-e2e',
  rootDir: __dirname,
  testTimeout: 180_000,
  // The suite starts real processes and a real sshd; one at a time keeps a 2-core machine honest.
  maxWorkers: 1,
};
