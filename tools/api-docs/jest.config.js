module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'api-docs-tool',
  rootDir: __dirname,
};
