// Long lists (tasks, skipped files, result rows) render only the rows in view, with @tanstack/react-virtual.
// Rows have a fixed height, so scrolling stays smooth at 100,000 rows.

import { observeElementRect, useVirtualizer, type Rect, type Virtualizer } from '@tanstack/react-virtual';
import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import './VirtualList.css';

export interface VirtualListProps<T> {
  items: readonly T[];
  rowHeight: number;
  /** Height of the scroll area in px (or CSS, e.g. '60vh'). */
  height: number | string;
  getKey: (item: T, index: number) => string;
  renderRow: (item: T, index: number) => ReactNode;
  testId?: string;
  label: string;
  /** Optional header row rendered above the scroll area (a table head). */
  header?: ReactNode;
  /** Index of the selected row, kept in view. */
  selectedIndex?: number;
  /** Arrow keys move the selection (for listbox-like lists). */
  onMove?: (index: number) => void;
  role?: 'list' | 'listbox' | 'table' | 'grid';
  className?: string;
}

export function VirtualList<T>(props: VirtualListProps<T>) {
  const parent = useRef<HTMLDivElement>(null);
  const fallback: Rect = { width: 800, height: typeof props.height === 'number' ? props.height : 480 };
  const virt = useVirtualizer({
    count: props.items.length,
    getScrollElement: () => parent.current,
    estimateSize: () => props.rowHeight,
    overscan: 8,
    // A first render before layout (and in tests) still shows the first rows.
    initialRect: fallback,
    // An element not laid out yet (a hidden tab, a test DOM) measures 0 × 0: show the first rows anyway.
    observeElementRect: (instance: Virtualizer<HTMLDivElement, Element>, cb: (rect: Rect) => void) =>
      observeElementRect(instance, (rect) => cb(rect.height > 0 ? rect : { width: rect.width || fallback.width, height: fallback.height })),
  });
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!props.onMove || !props.items.length) return;
    const cur = props.selectedIndex ?? -1;
    let next: number;
    if (e.key === 'ArrowDown') next = Math.min(props.items.length - 1, cur + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, cur - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = props.items.length - 1;
    else if (e.key === 'PageDown')
      next = Math.min(props.items.length - 1, cur + Math.max(1, Math.floor((parent.current?.clientHeight ?? 400) / props.rowHeight) - 1));
    else if (e.key === 'PageUp') next = Math.max(0, cur - Math.max(1, Math.floor((parent.current?.clientHeight ?? 400) / props.rowHeight) - 1));
    else return;
    e.preventDefault();
    props.onMove(next);
    virt.scrollToIndex(next, { align: 'auto' });
  };
  const items = virt.getVirtualItems();
  return (
    <div className={`vlist ${props.className ?? ''}`} data-testid={props.testId} data-count={props.items.length}>
      {props.header}
      <div
        ref={parent}
        className="vlist-scroll"
        style={{ height: props.height }}
        tabIndex={0}
        role={props.role ?? 'list'}
        aria-label={props.label}
        aria-activedescendant={
          props.onMove && props.selectedIndex != null && props.selectedIndex >= 0 ? `${props.testId ?? 'vlist'}-row-${props.selectedIndex}` : undefined
        }
        onKeyDown={onKeyDown}
      >
        <div style={{ height: virt.getTotalSize(), position: 'relative', width: '100%' }}>
          {items.map((v) => {
            const item = props.items[v.index]!;
            return (
              <div
                key={props.getKey(item, v.index)}
                id={`${props.testId ?? 'vlist'}-row-${v.index}`}
                className="vlist-row"
                role={props.role === 'listbox' ? 'option' : props.role === 'table' || props.role === 'grid' ? 'row' : 'listitem'}
                aria-selected={props.role === 'listbox' ? v.index === props.selectedIndex : undefined}
                style={{ position: 'absolute', top: 0, left: 0, width: '100%', height: v.size, transform: `translateY(${v.start}px)` }}
                data-index={v.index}
              >
                {props.renderRow(item, v.index)}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
