module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'embedded',
  rootDir: __dirname,
  testTimeout: 180_000,
};
