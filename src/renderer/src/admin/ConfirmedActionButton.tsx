import { Button, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { useAdminStrings } from './strings';

/**
 * A row's action that cannot be undone (revoke a key, unpair a node), behind a confirmation whose
 * focus opens on Cancel, the safe answer. `act` runs after Yes; the button is busy until it settles.
 */
interface ConfirmedActionProps {
  action: string;
  row: string;
  title: string;
  body: string;
  yes: string;
  act(): Promise<void>;
}

export function ConfirmedActionButton(props: ConfirmedActionProps) {
  const t = useAdminStrings();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirm = () => {
    setConfirming(false);
    setBusy(true);
    void props.act().finally(() => setBusy(false));
  };
  return (
    <>
      <Button size="xs" color="red" variant="light" loading={busy} aria-label={t.rowAction(props.action, props.row)} onClick={() => setConfirming(true)}>
        {props.action}
      </Button>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={props.title}>
        <Text mb="lg">{props.body}</Text>
        <Group justify="flex-end">
          <Button variant="default" data-autofocus onClick={() => setConfirming(false)}>
            {t.cancel}
          </Button>
          <Button color="red" onClick={confirm}>
            {props.yes}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
