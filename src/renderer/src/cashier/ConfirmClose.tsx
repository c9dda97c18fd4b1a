import { Button, Group, Modal, Text } from '@mantine/core';
import { useCashier, useCashierUi, useCustomer } from './context';
import { fullName } from './customer-name';
import { useCashierStrings } from './strings';

/** "Close the session?" (X): Enter confirms (the button has the focus), Escape cancels. */
export function ConfirmClose() {
  const t = useCashierStrings();
  const cashier = useCashier();
  const open = useCashierUi((s) => s.dialog === 'confirmClose');
  const customer = useCustomer((s) => s.customer);
  const close = () => cashier.ui.getState().show(null);
  const name = customer ? fullName(customer.user, customer.user.email_address) : '';
  return (
    <Modal opened={open} onClose={close} title={t.confirmCloseTitle}>
      <Text mb="lg">{t.confirmCloseBody(name)}</Text>
      <Group justify="flex-end">
        <Button size="lg" variant="default" onClick={close}>
          {t.cancel}
        </Button>
        <Button
          size="lg"
          color="red"
          data-autofocus
          onClick={() => {
            close();
            void cashier.customer
              .getState()
              .closeSession()
              .then((ok) => {
                if (ok) void cashier.queue.getState().reload();
              });
          }}
        >
          {t.closeSession}
        </Button>
      </Group>
    </Modal>
  );
}
