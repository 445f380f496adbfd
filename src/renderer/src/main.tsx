import { createRoot } from 'react-dom/client';

function App() {
  return <main>ContextPack</main>;
}

createRoot(document.getElementById('root')!).render(<App />);
