import '@mantine/core/styles.css';
import './theme.css';
import { MantineProvider } from '@mantine/core';
import { StrictMode, useMemo } from 'react';
import { createRoot } from 'react-dom/client';
import { AdminApp } from './admin/AdminApp';
import { App } from './App';
import { useShellStrings } from './app/strings';
import { cssVariablesResolver, themeIn } from './theme';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

/** The theme follows the language: its close buttons are named in it. */
function Themed() {
  const close = useShellStrings().close;
  const theme = useMemo(() => themeIn(close), [close]);
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      {/* The same page serves the counter at / and the back office at /admin. */}
      {window.location.pathname.startsWith('/admin') ? <AdminApp /> : <App />}
    </MantineProvider>
  );
}

createRoot(root).render(
  <StrictMode>
    <Themed />
  </StrictMode>,
);
