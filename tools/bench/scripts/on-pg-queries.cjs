// Shared by the query measuring aids (count-queries.cjs, trace-queries.cjs): wraps `Client.prototype.query`
// of every copy of `pg` a process loads (MikroORM brings its own), each Client class once.
'use strict';
const Module = require('node:module');
const { basename, dirname, join } = require('node:path');

/** `wrap(query)` returns the replacement for one copy's original `query`. */
function onPgQueries(wrap) {
  const load = Module._load;
  const patched = new WeakSet();
  Module._load = function (request, ...rest) {
    const loaded = load.call(this, request, ...rest);
    if (request === 'pg' && loaded && loaded.Client && !patched.has(loaded.Client)) {
      patched.add(loaded.Client);
      loaded.Client.prototype.query = wrap(loaded.Client.prototype.query);
    }
    return loaded;
  };
}

/** This process's file in `dir`: `<pid>-<app>-<script><extension>` (e.g. `123-intake-main.ts.json`). */
function fileOfThisProcess(dir, extension) {
  const script = process.argv[1] ? `${basename(dirname(dirname(process.argv[1])))}-${basename(process.argv[1])}` : 'node';
  return join(dir, `${process.pid}-${script.replace(/[^\w.-]+/g, '_')}${extension}`);
}

module.exports = { onPgQueries, fileOfThisProcess };
