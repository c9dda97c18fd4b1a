import '@mantine/core/styles.css';
import { createTheme, MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AdminApp } from './admin/AdminApp';
import { App } from './App';

const theme = createTheme({ primaryColor: 'teal', defaultRadius: 'md' });

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="light">
      {/* The same page serves the counter at / and the back office at /admin. */}
      {window.location.pathname.startsWith('/admin') ? <AdminApp /> : <App />}
    </MantineProvider>
  </StrictMode>,
);
