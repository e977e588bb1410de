// The shapes the statistics hand back (main/stats computes them; reports, the contract and the UI show them):
// a point estimate with its interval, and one bin of a reliability diagram. Plain data, no code.

/** An estimate with its percentile bootstrap interval. */
export interface Interval {
  estimate: number;
  /** Percentile bootstrap interval bounds (NaN when undefined, e.g. one task). */
  lo: number;
  hi: number;
}

export interface CalibrationBin {
  lo: number;
  hi: number;
  count: number;
  meanPredicted: number;
  observedRate: number;
}
