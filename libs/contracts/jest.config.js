module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'contracts',
  rootDir: __dirname,
};
