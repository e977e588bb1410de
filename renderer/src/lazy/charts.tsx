// The charts as a lazy part (lazy/load.tsx says how it loads). It is apart from lazy/parts.tsx because a view that
// module loads (the Experiment view's analysis) shows it: importing it from there would close an import cycle.

import { chunk } from './chunks/charts.ts';
import { lazyPart } from './load.tsx';

export const ChartsPart = lazyPart('charts', chunk, (m) => m.ChartsPanel, 'charts');
