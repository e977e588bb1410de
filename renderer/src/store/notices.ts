// Toasts: the same message within NOTICE_MERGE_MS is one toast, counted; information and warnings leave by
// themselves after NOTICE_TTL_MS (held while the pointer rests on one); errors stay until dismissed.

import { NOTICE_MAX, NOTICE_MERGE_MS, NOTICE_TTL_MS, type AppState, type Notice, type StoreContext } from './state.ts';

export function noticeActions({ set, get }: StoreContext): Pick<AppState, 'notify' | 'dismissNotice' | 'holdNotice'> {
  let noticeId = 0;
  /** The pending expiry of each toast that leaves by itself (not while held). */
  const noticeTimers = new Map<number, ReturnType<typeof setTimeout>>();
  const held = new Set<number>();

  const stopTimer = (id: number) => {
    const t = noticeTimers.get(id);
    if (t !== undefined) clearTimeout(t);
    noticeTimers.delete(id);
  };

  /** Forgets a toast's timer and hold (it is gone). */
  const forgetNotice = (id: number) => {
    stopTimer(id);
    held.delete(id);
  };

  /** (Re)starts the spell after which a toast of `level` leaves by itself; errors and held toasts stay. */
  const armNotice = (id: number, level: Notice['level']) => {
    stopTimer(id);
    const ttl = NOTICE_TTL_MS[level];
    if (ttl === null || held.has(id)) return;
    noticeTimers.set(
      id,
      setTimeout(() => {
        noticeTimers.delete(id);
        set({ notices: get().notices.filter((n) => n.id !== id) });
      }, ttl),
    );
  };

  return {
    notify(level, message) {
      const at = Date.now();
      const notices = get().notices;
      const same = notices.find((n) => n.level === level && n.message === message && at - n.at <= NOTICE_MERGE_MS);
      if (same) {
        // One failing call reported by several views is one toast, counted (and shown for another full spell).
        set({ notices: [...notices.filter((n) => n !== same), { ...same, count: same.count + 1, at }] });
        armNotice(same.id, level);
        return;
      }
      const id = ++noticeId;
      const kept = notices.slice(-(NOTICE_MAX - 1));
      for (const n of notices) if (!kept.includes(n)) forgetNotice(n.id);
      set({ notices: [...kept, { id, level, message, count: 1, at }] });
      armNotice(id, level);
    },

    dismissNotice: (id) => {
      forgetNotice(id);
      set({ notices: get().notices.filter((n) => n.id !== id) });
    },

    holdNotice(id, hold) {
      const n = get().notices.find((x) => x.id === id);
      if (!n) return;
      if (hold) {
        held.add(id);
        stopTimer(id);
      } else {
        held.delete(id);
        armNotice(id, n.level);
      }
    },
  };
}
