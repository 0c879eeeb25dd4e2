module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'demo-target',
  rootDir: __dirname,
};
