// Arrow-key focus movement inside a group (navigation, tab lists, segmented controls): the group is one tab
// stop, arrows move between its items, Home / End jump, Enter / Space activate (the items are buttons).

import type { KeyboardEvent } from 'react';

export function rovingKeyDown(e: KeyboardEvent<HTMLElement>, orientation: 'horizontal' | 'vertical' | 'both' = 'both'): void {
  const keys =
    orientation === 'horizontal'
      ? { prev: ['ArrowLeft'], next: ['ArrowRight'] }
      : orientation === 'vertical'
        ? { prev: ['ArrowUp'], next: ['ArrowDown'] }
        : { prev: ['ArrowLeft', 'ArrowUp'], next: ['ArrowRight', 'ArrowDown'] };
  const isPrev = keys.prev.includes(e.key);
  const isNext = keys.next.includes(e.key);
  if (!isPrev && !isNext && e.key !== 'Home' && e.key !== 'End') return;
  const items = Array.from(e.currentTarget.querySelectorAll<HTMLElement>('[data-roving]:not([disabled])'));
  if (!items.length) return;
  const at = items.findIndex((el) => el === document.activeElement);
  let next = at;
  if (e.key === 'Home') next = 0;
  else if (e.key === 'End') next = items.length - 1;
  else if (isPrev) next = at <= 0 ? items.length - 1 : at - 1;
  else if (isNext) next = at < 0 || at >= items.length - 1 ? 0 : at + 1;
  e.preventDefault();
  for (const el of items) el.tabIndex = -1;
  items[next]!.tabIndex = 0;
  items[next]!.focus();
}
