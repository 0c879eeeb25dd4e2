// Records when every query a Node process sends through `pg` started and ended (epoch ms, µs
// precision), with the first 70 characters of its SQL, as JSON lines in `$QUERY_TRACE_DIR/<pid>-<script>.jsonl`.
// Preloaded into every process of a bench run; with one call at a time (the overhead or embedded
// scenario), `timeline-of-calls.cjs` then lays each call's queries out in order, gaps included:
//   QUERY_TRACE_DIR=/tmp/qt NODE_OPTIONS="-r $PWD/tools/bench/scripts/trace-queries.cjs" npm run bench -- --only embedded --rounds 1 …
// A measuring aid only: never loaded by the services themselves.
'use strict';
const { fileOfThisProcess, onPgQueries } = require('./on-pg-queries.cjs');
const { mkdirSync, appendFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');

const dir = process.env.QUERY_TRACE_DIR;
if (dir) {
  const file = fileOfThisProcess(dir, '.jsonl');
  const now = () => Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000;
  let lines = [];
  const flush = () => {
    if (lines.length === 0) return;
    try {
      mkdirSync(dir, { recursive: true });
      appendFileSync(file, lines.join('\n') + '\n');
    } catch {
      // a measuring aid: never the reason a process fails
    }
    lines = [];
  };
  onPgQueries(
    (query) =>
      function (config, ...args) {
        const text = typeof config === 'string' ? config : config && config.text;
        if (!text) return query.call(this, config, ...args);
        const started = now();
        const sql = text.replace(/\s+/g, ' ').trim().slice(0, 70);
        const record = () => lines.push(JSON.stringify({ s: started, e: now(), q: sql }));
        // pg's pool passes a callback; a direct caller gets a promise.
        const last = args.length - 1;
        if (typeof args[last] === 'function') {
          const callback = args[last];
          args[last] = function (...results) {
            record();
            return callback.apply(this, results);
          };
          return query.call(this, config, ...args);
        }
        const result = query.call(this, config, ...args);
        if (result && typeof result.then === 'function') result.then(record, record);
        return result;
      },
  );
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
}
