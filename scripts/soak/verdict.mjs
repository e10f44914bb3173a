// The soak test's judgement (issue 28; docs/soak.md), apart from the processes and the load so it
// can be tested on its own (test/soak/verdict.test.ts): a least-squares slope over the samples
// after the warm-up, turned into the growth it predicts over the measured window, against fixed
// bounds; and the call tally (lost, duplicated, hung, wrong).

/** Fitted growth over the measured window above which memory is said to grow. */
export const BOUNDS = Object.freeze({
  /** Heap after a full GC: steady state varies by a few MB; a leak of 60 B per call fails an hour. */
  heapMB: 10,
  /** RSS: the allocator keeps and returns pages in larger steps, so more room. */
  rssMB: 25,
  /** Handles at the end (after the load and its clients closed) over those at the start. */
  handles: 3,
});

/**
 * The part of the run not judged (heap and RSS still climbing to their working size): the first
 * third of the samples, at most 5 minutes' worth, at least one.
 */
export function warmupCount(samples, sampleMs) {
  const third = Math.ceil(samples.length / 3);
  return Math.max(1, Math.min(third, Math.floor(300_000 / sampleMs)));
}

/** Least-squares slope of `ys` over `xs` (units of y per unit of x); 0 with fewer than 2 points. */
export function slope(xs, ys) {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * One process's memory verdict from its samples (`{ t` ms, `heapUsed`, `rss` bytes `}`), judged
 * after the warm-up: the fitted slope in MB per hour, and the growth it predicts over the
 * measured window, which must stay under {@link BOUNDS}. With fewer than three measured samples
 * nothing can be fitted: `judged: false`.
 */
export function memoryVerdict(samples, sampleMs) {
  const measured = samples.slice(warmupCount(samples, sampleMs));
  if (measured.length < 3) return { judged: false, failures: [] };
  const xs = measured.map((s) => s.t / 3_600_000);
  const windowHours = xs.at(-1) - xs[0];
  const mb = (bytes) => bytes / 1_048_576;
  const heapPerHour = slope(
    xs,
    measured.map((s) => mb(s.heapUsed)),
  );
  const rssPerHour = slope(
    xs,
    measured.map((s) => mb(s.rss)),
  );
  const heapGrowth = heapPerHour * windowHours;
  const rssGrowth = rssPerHour * windowHours;
  const failures = [];
  if (heapGrowth > BOUNDS.heapMB)
    failures.push(
      `heap grows ${heapPerHour.toFixed(1)} MB/h: ${heapGrowth.toFixed(1)} MB over the window (bound ${BOUNDS.heapMB} MB)`,
    );
  if (rssGrowth > BOUNDS.rssMB)
    failures.push(
      `RSS grows ${rssPerHour.toFixed(1)} MB/h: ${rssGrowth.toFixed(1)} MB over the window (bound ${BOUNDS.rssMB} MB)`,
    );
  return {
    judged: true,
    heapPerHour,
    rssPerHour,
    heapGrowth,
    rssGrowth,
    windowMinutes: windowHours * 60,
    failures,
  };
}

/**
 * A tally of calls by kind and outcome. Every call goes through `track`: it must settle exactly
 * once, with the outcome its kind expects, within `boundMs`; anything else is counted as lost
 * (never settled by the end), hung (settled after its bound), duplicated (settled twice) or wrong.
 */
export class CallTally {
  constructor(boundMs) {
    this.boundMs = boundMs;
    this.kinds = new Map();
    this.open = new Set();
    this.problems = [];
  }

  kind(name) {
    let k = this.kinds.get(name);
    if (!k)
      this.kinds.set(name, (k = { started: 0, ok: 0, expectedError: 0, wrong: 0, hung: 0, duplicated: 0 }));
    return k;
  }

  /**
   * Track one call: `expect(outcome)` says whether `{ value }` or `{ error }` is what this kind
   * should give ('ok' or 'expectedError'), or a string naming what is wrong.
   */
  track(name, promise, expect) {
    const k = this.kind(name);
    k.started++;
    const call = { name, begin: Date.now(), settled: 0 };
    this.open.add(call);
    const settle = (outcome) => {
      call.settled++;
      if (call.settled > 1) {
        k.duplicated++;
        this.problem(`${name}: settled twice`);
        return;
      }
      this.open.delete(call);
      const took = Date.now() - call.begin;
      if (took > this.boundMs) {
        k.hung++;
        this.problem(`${name}: settled after ${took} ms (bound ${this.boundMs} ms)`);
        return;
      }
      const verdict = expect(outcome);
      if (verdict === 'ok') k.ok++;
      else if (verdict === 'expectedError') k.expectedError++;
      else {
        k.wrong++;
        this.problem(`${name}: ${verdict}`);
      }
    };
    promise.then(
      (value) => settle({ value }),
      (error) => settle({ error }),
    );
    return promise.then(
      () => undefined,
      () => undefined,
    );
  }

  /** A response for a request nobody waits on (a second answer, or one after a cancel that won). */
  duplicate(name, detail) {
    this.kind(name).duplicated++;
    this.problem(`${name}: ${detail}`);
  }

  problem(text) {
    if (this.problems.length < 50) this.problems.push(text);
  }

  /** Counts so far (calls still open are not judged yet). */
  totals() {
    const totals = {
      started: 0,
      ok: 0,
      expectedError: 0,
      wrong: 0,
      hung: 0,
      duplicated: 0,
      open: this.open.size,
    };
    for (const k of this.kinds.values()) for (const key of Object.keys(k)) totals[key] += k[key];
    return totals;
  }

  /** The calls still open at the end: lost. */
  finish() {
    const lost = [...this.open];
    for (const call of lost) this.problem(`${call.name}: never settled`);
    const { open: _open, ...counted } = this.totals();
    const totals = { ...counted, lost: lost.length };
    return { kinds: Object.fromEntries(this.kinds), totals, problems: this.problems };
  }
}
