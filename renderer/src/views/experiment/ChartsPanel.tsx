// The Analysis' Charts tab: every chart of the chosen run(s). Its own lazily loaded chunk (renderer/src/lazy):
// recharts and d3 are about half the UI's code and no first screen needs them.

import type { ReportModel } from '../../api/contract.ts';
import { ApiChart, CalibrationChart, FactorialCharts, PassAtKChart, SelectedVsRawChart } from './Charts.tsx';

export function ChartsPanel({ model }: { model: ReportModel }) {
  return (
    <div data-testid="analysis-charts">
      <FactorialCharts model={model} />
      <div className="chart-grid">
        <PassAtKChart model={model} />
        <SelectedVsRawChart model={model} />
        <CalibrationChart model={model} />
        <ApiChart model={model} />
      </div>
    </div>
  );
}
