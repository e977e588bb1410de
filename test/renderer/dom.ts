// A fresh DOM container and React root for every test of a file (happy-dom), unmounted and removed after it.

import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach } from 'vitest';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Mount {
  readonly container: HTMLDivElement;
  readonly root: Root;
  $(sel: string): HTMLElement | null;
  q(sel: string): HTMLElement[];
}

/** Registers the per-test setup and teardown; read `container` and `root` inside tests only. */
export function mountPerTest(): Mount {
  let container: HTMLDivElement | undefined;
  let root: Root | undefined;
  beforeEach(() => {
    container = document.createElement('div');
    document.body.appendChild(container);
    root = createRoot(container);
  });
  afterEach(() => {
    act(() => root!.unmount());
    container!.remove();
  });
  return {
    get container() {
      return container!;
    },
    get root() {
      return root!;
    },
    $: (sel) => container!.querySelector<HTMLElement>(sel),
    q: (sel) => Array.from(container!.querySelectorAll<HTMLElement>(sel)),
  };
}
