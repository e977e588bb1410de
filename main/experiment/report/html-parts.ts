// The pieces every section of the HTML report is built from: escaping, table cells and tables, intervals, a
// figure's degenerate mark, and the note that stands where a chart cannot be drawn.

import { type Interval } from '../../model/report.ts';
import { escapeXml } from '../svg-charts.ts';
import { formatRate } from './format.ts';

export const h = escapeXml;
/** A figure with a `degenerate` mark under it, the reason as its tooltip, when the figure says nothing. */
export function flaggedHtml(value: string, flag: string | null): string {
  return flag ? `${value}<br><span class="warning" data-degenerate-flag title="${h(flag)}">degenerate</span>` : value;
}

export function td(content: string, col: string, cls = ''): string {
  return `<td data-col="${h(col)}"${cls ? ` class="${cls}"` : ''}>${content}</td>`;
}

/** `0.412 [0.350, 0.470]`; stacked puts the interval on a second line (the text content stays the same). */
export function intervalHtml(iv: Interval, stacked = false): string {
  return `<span class="est">${formatRate(iv.estimate)}</span>${stacked ? '<br>' : ' '}<span class="ci">[${formatRate(iv.lo)}, ${formatRate(iv.hi)}]</span>`;
}

export interface Header {
  label: string;
  /** Second header line, e.g. the interval level. */
  sub?: string;
  num?: boolean;
  title?: string;
}

export function table(name: string, headers: Header[], rows: string[]): string {
  const head = headers
    .map(
      (x) =>
        `<th${x.num ? ' class="num"' : ''}${x.title ? ` title="${h(x.title)}"` : ''}>${h(x.label)}${x.sub ? `<br><span class="sub">${h(x.sub)}</span>` : ''}</th>`,
    )
    .join('');
  return `<div class="table-wrap"><table data-table="${h(name)}"><thead><tr>${head}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table></div>`;
}

export function missing(chart: string, heading: string, why: string): string {
  return `<div class="chart-missing" data-chart-missing="${h(chart)}" role="note"><strong>${h(heading)}</strong> ${h(why)}</div>`;
}
