module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'bench',
  rootDir: __dirname,
  // Only the pure parts (statistics, report rendering) have tests: the benchmark itself is `npm run bench`.
  testMatch: ['**/*.unit.spec.ts'],
};
