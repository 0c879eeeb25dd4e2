module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'api-docs',
  rootDir: __dirname,
};
