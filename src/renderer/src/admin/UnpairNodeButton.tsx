import { Button, Group, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { adminStore } from './admin-store';
import { refusalText } from './node-refusal';
import { useAdminStrings } from './strings';

/** A store node's Unpair, after a confirmation that opens on Cancel: a till replaced or gone for good. */
export function UnpairNodeButton({ nodeId, label, onDone }: { nodeId: number; label: string; onDone: (result: { ok: true } | { ok: false; error: string }) => void }) {
  const t = useAdminStrings();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const unpair = () => {
    setConfirming(false);
    setBusy(true);
    adminStore
      .getState()
      .api()
      .unpairNode(nodeId)
      .then(() => onDone({ ok: true }))
      .catch((error: unknown) => onDone({ ok: false, error: refusalText(error) }))
      .finally(() => setBusy(false));
  };
  return (
    <>
      <Button size="xs" color="red" variant="light" loading={busy} aria-label={t.rowAction(t.unpairNode, label)} onClick={() => setConfirming(true)}>
        {t.unpairNode}
      </Button>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title={t.confirmUnpairNode(label)}>
        <Text mb="lg">{t.confirmUnpairNodeBody}</Text>
        <Group justify="flex-end">
          {/* Unpairing cannot be undone: the focus is on the safe answer. */}
          <Button variant="default" data-autofocus onClick={() => setConfirming(false)}>
            {t.cancel}
          </Button>
          <Button color="red" onClick={unpair}>
            {t.yesUnpair}
          </Button>
        </Group>
      </Modal>
    </>
  );
}
