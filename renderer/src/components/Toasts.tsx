// The toasts: the engine's and the views' notices, newest last. Information and warnings leave by themselves after
// a few seconds (store.ts NOTICE_TTL_MS); the pointer or keyboard focus resting on one keeps it, and it has another
// full spell once left. Errors stay until dismissed. Each can be closed, and several at once with "Dismiss all".

import { useApp } from '../store.ts';
import './Toasts.css';

export function Toasts() {
  const notices = useApp((s) => s.notices);
  const dismiss = useApp((s) => s.dismissNotice);
  const hold = useApp((s) => s.holdNotice);
  if (!notices.length) return null;
  return (
    <div className="toasts" aria-live="polite" data-testid="notices">
      {notices.length > 1 ? (
        <button type="button" className="toasts-clear" onClick={() => notices.forEach((n) => dismiss(n.id))} data-testid="notices-dismiss-all">
          Dismiss all
        </button>
      ) : null}
      {notices.map((n) => (
        <div
          key={n.id}
          className={`toast toast-${n.level}`}
          role={n.level === 'error' ? 'alert' : 'status'}
          data-testid="notice"
          data-level={n.level}
          data-count={n.count}
          onMouseEnter={() => hold(n.id, true)}
          onMouseLeave={() => hold(n.id, false)}
          onFocus={() => hold(n.id, true)}
          onBlur={() => hold(n.id, false)}
        >
          <span className="toast-text">{n.message}</span>
          {n.count > 1 ? (
            <span className="toast-count" data-testid="notice-count" title={`${n.count} times in a row`} aria-label={`${n.count} times`}>
              ×{n.count}
            </span>
          ) : null}
          <button type="button" className="toast-close" aria-label="Dismiss" onClick={() => dismiss(n.id)} data-testid="notice-close">
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
