// Entry: pick the transport, install the store, subscribe to engine events, render.

// The global sheets first: the bundle keeps CSS in import order, so the components' and views' sheets (imported by
// their .tsx) come after these and win where specificity is equal.
import './styles/tokens.css';
import './styles/base.css';
import './styles/controls.css';
import { createRoot } from 'react-dom/client';
import { boot } from './api/index.ts';
import { App } from './App.tsx';
import { NoToken, TokenRejected } from './views/NoToken.tsx';
import { createAppStore, installStore } from './store.ts';

const root = createRoot(document.getElementById('root')!);

const started = boot((error) => root.render(<TokenRejected message={error.message} />));
if (started.kind === 'no-token') {
  root.render(<NoToken />);
} else {
  const { transport } = started;
  const store = createAppStore(transport);
  installStore(store, transport);
  transport.subscribe((e) => store.getState().handleEvent(e));
  store.getState().setConnection(transport.connection(), false);
  transport.onConnection((info, reopened) => store.getState().setConnection(info, reopened));
  void store.getState().init();
  root.render(<App />);
}
