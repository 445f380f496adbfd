import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { setApiClient } from './api/client.ts';
import { createHttpClient, takeToken } from './api/http-client.ts';
import { createIpcClient } from './api/ipc-client.ts';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

// The desktop preload provides the bridge; a browser opened on `contextpack serve` has the token in the fragment.
if (window.contextpack) {
  setApiClient(createIpcClient(window.contextpack));
  root.render(<App />);
} else {
  const token = takeToken();
  if (token) {
    setApiClient(createHttpClient(token));
    root.render(<App />);
  } else {
    root.render(
      <main className="view">
        <h1>ContextPack</h1>
        <p className="error" role="alert">No API token. Open the full link that <code>contextpack serve</code> printed (it ends in #token=…).</p>
      </main>,
    );
  }
}
