module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'http-channel',
  rootDir: __dirname,
};
