// Entry: pick the transport, install the store, subscribe to engine events, restore the route, render.

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
import { bindRoute, parseRoute } from './route.ts';

const root = createRoot(document.getElementById('root')!);

const started = boot((error) => root.render(<TokenRejected message={error.message} />));
if (started.kind === 'no-token') {
  root.render(<NoToken />);
} else {
  const { transport } = started;
  // Read before anything is rendered: the token (when the URL carried it) is already out of the hash.
  const route = parseRoute(window.location.hash);
  const store = createAppStore(transport, { initialView: route.view });
  installStore(store, transport);
  transport.subscribe((e) => store.getState().handleEvent(e));
  store.getState().setConnection(transport.connection(), false);
  transport.onConnection((info, reopened) => store.getState().setConnection(info, reopened));
  // The route's manifest is loaded before init, so init does not load the sample manifest over it.
  store.getState().applyRoute(route);
  bindRoute(store, window);
  void store.getState().init();
  root.render(<App />);
}
