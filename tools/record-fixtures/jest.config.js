module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'record-fixtures',
  rootDir: __dirname,
  // One recording is several throwaway databases and a full authorization run.
  testTimeout: 120_000,
};
