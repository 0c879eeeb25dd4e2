// Per process, the queries it sent per execution (the dispatcher stores one result per execution),
// from the files count-queries.cjs wrote: `node tools/bench/scripts/summarize-query-counts.cjs /tmp/qc`.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node tools/bench/scripts/summarize-query-counts.cjs <QUERY_COUNT_DIR>');
  process.exit(64);
}
const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
const counted = files.map((name) => ({ name, counts: JSON.parse(readFileSync(join(dir, name), 'utf8')) }));
const RESULT_ROWS = '(result rows stored)';
const all = counted.flatMap(({ counts }) => counts);
const rows = all.filter(([text]) => text === RESULT_ROWS).reduce((sum, [, n]) => sum + n, 0);
const executions =
  rows ||
  all
    // Counts from before the counter noted rows: alone, or as the guard of OutcomeObserved's insert (one statement since round-18q).
    .filter(([text]) => /^(WITH guard AS \()?INSERT INTO onceport\.results/.test(text))
    .reduce((sum, [, n]) => sum + n, 0);
for (const entry of counted) entry.counts = entry.counts.filter(([text]) => text !== RESULT_ROWS);
if (executions === 0) {
  console.error(`no execution stored a result in what ${dir} holds: run a throughput round with the counter preloaded`);
  process.exit(1);
}
console.log(`${executions} executions`);
for (const { name, counts } of counted) {
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  if (total < executions / 10) continue;
  console.log(`\n${name}: ${(total / executions).toFixed(1)} queries per execution`);
  for (const [text, n] of counts.slice(0, 12)) console.log(`  ${(n / executions).toFixed(2).padStart(6)}  ${text}`);
}
