// Counts every query a Node process sends through `pg` (the services' pools and the ORM's knex alike),
// by the first 90 characters of its SQL (and of its WHERE clause, when that comes later), into `$QUERY_COUNT_DIR/<pid>-<script>.json` every 2 s and at
// exit. Preloaded into every process of a bench run (see the README, "Counting queries per process"):
//   QUERY_COUNT_DIR=/tmp/qc NODE_OPTIONS="-r $PWD/tools/bench/scripts/count-queries.cjs" npm run bench -- …
// A measuring aid only: never loaded by the services themselves.
'use strict';
const { fileOfThisProcess, onPgQueries } = require('./on-pg-queries.cjs');
const { mkdirSync, writeFileSync } = require('node:fs');

const dir = process.env.QUERY_COUNT_DIR;
/** Not a query: the results the counted statements stored (see summarize-query-counts.cjs). */
const RESULT_ROWS = '(result rows stored)';
if (dir) {
  const counts = new Map();
  onPgQueries(
    (query) =>
      function (config, ...args) {
        const text = typeof config === 'string' ? config : config && config.text;
        if (text) {
          const flat = text.replace(/\s+/g, ' ').trim();
          // Reads of the same columns differ only in their WHERE: keep it, so they count apart.
          const where = flat.indexOf(' WHERE ', 90);
          const key = flat.slice(0, 90) + (where > 0 ? ` … ${flat.slice(where + 1, where + 71)}` : '');
          counts.set(key, (counts.get(key) || 0) + 1);
          // Results stored (one per execution): a grouped statement stores several, its first value the array of their refs.
          if (/INSERT INTO onceport\.results/.test(flat)) {
            const values = typeof config === 'string' ? args[0] : config && config.values;
            const first = Array.isArray(values) ? values[0] : undefined;
            counts.set(RESULT_ROWS, (counts.get(RESULT_ROWS) || 0) + (Array.isArray(first) ? first.length : 1));
          }
        }
        return query.call(this, config, ...args);
      },
  );
  const file = fileOfThisProcess(dir, '.json');
  const dump = () => {
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, JSON.stringify([...counts.entries()].sort((a, b) => b[1] - a[1])));
    } catch {
      // a measuring aid: never the reason a process fails
    }
  };
  setInterval(dump, 2000).unref();
  process.on('exit', dump);
}
