// Browser mode without a session token: explain how to get the URL that carries one.

import type { ReactNode } from 'react';
import './NoToken.css';

/** A page of its own (no app around it): the brand, then what it says. */
function FullPage({ testId, children }: { testId: string; children: ReactNode }) {
  return (
    <main className="fullpage" data-testid={testId}>
      <div className="fullpage-card">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          OpenCoder
        </div>
        {children}
      </div>
    </main>
  );
}

export function NoToken() {
  return (
    <FullPage testId="no-token">
      <h1>This page needs the address the engine printed</h1>
      <p>
        The OpenCoder UI talks to a local engine that only answers requests carrying its session token. The token is part of the address the engine prints when
        it starts, after <code>#token=</code>.
      </p>
      <ol>
        <li>
          In a terminal, in the OpenCoder folder, run <code>npx opencoder serve</code> (or <code>npm start</code>).
        </li>
        <li>
          Open the URL it prints, for example <code>http://127.0.0.1:4173/#token=…</code>, in this browser.
        </li>
      </ol>
      <p className="muted">
        The token is kept for this tab only and removed from the address bar once read. Opening the page again in a new tab needs the printed URL again.
      </p>
    </FullPage>
  );
}

export function TokenRejected(props: { message: string }) {
  return (
    <FullPage testId="token-rejected">
      <h1>The engine did not accept this session</h1>
      <p>{props.message}</p>
      <p>
        The engine makes a new token each time it starts. Restart it with <code>npx opencoder serve</code> (or <code>npm start</code>) and open the URL it
        prints.
      </p>
    </FullPage>
  );
}
