module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'test-target',
  rootDir: __dirname,
};
