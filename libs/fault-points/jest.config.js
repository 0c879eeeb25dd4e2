module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'fault-points',
  rootDir: __dirname,
};
