import { Alert, Stack } from '@mantine/core';
import { defineStrings } from '../i18n/define-strings';
import { toastStore, useToasts } from './toast-store';

const useToastStrings = defineStrings({
  en: { close: 'Dismiss' },
  es: { close: 'Cerrar' },
});

/** The page's toasts, bottom right, above everything; each one can be dismissed by touch or keyboard. */
export function Toasts() {
  const toasts = useToasts();
  const t = useToastStrings();
  if (toasts.length === 0) return null;
  return (
    <Stack gap="sm" pos="fixed" bottom={16} right={16} maw={420} style={{ zIndex: 1000 }} data-testid="toasts">
      {toasts.map((toast) => (
        <Alert
          key={toast.id}
          role={toast.tone === 'error' ? 'alert' : 'status'}
          color={toast.tone === 'error' ? 'red' : 'teal'}
          variant="filled"
          title={toast.title}
          withCloseButton
          closeButtonLabel={t.close}
          onClose={() => toastStore.getState().dismiss(toast.id)}
          data-testid="toast"
          style={{ boxShadow: 'var(--mantine-shadow-md)' }}
        >
          {toast.message}
        </Alert>
      ))}
    </Stack>
  );
}
