// Lays out the queries of each call recorded by `trace-queries.cjs`, one call at a time:
//   node tools/bench/scripts/timeline-of-calls.cjs /tmp/qt [anchor-regex] [calls-to-print]
// A call starts at a query matching the anchor (default: intake's acceptance) and ends before the
// next one. Prints a few calls in full (offset from the anchor, duration, process, SQL), then, over
// all calls, the median offset and duration of each query by its place in the call, and how much of
// a call was spent waiting on PostgreSQL versus between queries.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const [dir, anchorText = 'INSERT INTO onceport.intake_in_flight', printCount = '2'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: timeline-of-calls.cjs <QUERY_TRACE_DIR> [anchor-regex] [calls-to-print]');
  process.exit(2);
}
const anchor = new RegExp(anchorText);
const queries = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
  const who = file.replace(/^\d+-/, '').replace(/\.jsonl$/, '');
  for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
    if (line) queries.push({ ...JSON.parse(line), who });
  }
}
queries.sort((a, b) => a.s - b.s);
const starts = queries.filter((q) => anchor.test(q.q)).map((q) => q.s);
const calls = starts.map((start, i) => {
  const end = starts[i + 1] ?? Number.POSITIVE_INFINITY;
  // Each call's queries from a little before its anchor (intake's lookups) up to the next call.
  const lead = 15;
  return queries.filter((q) => q.s >= start - lead && q.s < end - lead).map((q) => ({ ...q, at: q.s - start, ms: q.e - q.s }));
});

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : Number.NaN;
};
const fmt = (n) => n.toFixed(2).padStart(7);

const sample = calls.slice(Math.floor(calls.length / 2), Math.floor(calls.length / 2) + Number(printCount));
for (const call of sample) {
  console.log(`\n--- one call: ${call.length} queries`);
  for (const q of call) console.log(`${fmt(q.at)} ${fmt(q.ms)}  ${q.who.padEnd(24).slice(0, 24)} ${q.q}`);
}

// Busy = the union of query intervals within [first start, last end] of a call.
const busy = (call) => {
  let total = 0;
  let until = Number.NEGATIVE_INFINITY;
  for (const q of [...call].sort((a, b) => a.s - b.s)) {
    if (q.e <= until) continue;
    total += q.e - Math.max(q.s, until);
    until = q.e;
  }
  return total;
};
const spans = calls.filter((c) => c.length > 0).map((c) => Math.max(...c.map((q) => q.e)) - Math.min(...c.map((q) => q.s)));
console.log(
  `\n${calls.length} calls; median span of a call's queries ${fmt(median(spans))} ms, of it in PostgreSQL ${fmt(median(calls.map(busy)))} ms`,
);

const byKey = new Map();
for (const call of calls) {
  const seen = new Map();
  for (const q of call) {
    const n = (seen.get(q.who + q.q) ?? 0) + 1;
    seen.set(q.who + q.q, n);
    const key = `${q.who.padEnd(24).slice(0, 24)} #${n} ${q.q}`;
    const entry = byKey.get(key) ?? { at: [], ms: [] };
    entry.at.push(q.at);
    entry.ms.push(q.ms);
    byKey.set(key, entry);
  }
}
console.log('\nmedian offset, median duration, share of calls, query (by its place in the call):');
const rows = [...byKey.entries()].filter(([, v]) => v.at.length >= calls.length * 0.3);
rows.sort((a, b) => median(a[1].at) - median(b[1].at));
for (const [key, v] of rows)
  console.log(`${fmt(median(v.at))} ${fmt(median(v.ms))} ${String(Math.round((100 * v.at.length) / calls.length)).padStart(4)} %  ${key}`);
