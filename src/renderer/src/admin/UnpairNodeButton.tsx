import { adminStore } from './admin-store';
import { ConfirmedActionButton } from './ConfirmedActionButton';
import { refusalText } from './node-refusal';
import { useAdminStrings } from './strings';

/** A store node's Unpair, after a confirmation: a till replaced or gone for good. */
export function UnpairNodeButton({ nodeId, label, onDone }: { nodeId: number; label: string; onDone: (result: { ok: true } | { ok: false; error: string }) => void }) {
  const t = useAdminStrings();
  const unpair = () =>
    adminStore
      .getState()
      .api()
      .unpairNode(nodeId)
      .then(() => onDone({ ok: true }))
      .catch((error: unknown) => onDone({ ok: false, error: refusalText(error) }));
  return <ConfirmedActionButton action={t.unpairNode} row={label} title={t.confirmUnpairNode(label)} body={t.confirmUnpairNodeBody} yes={t.yesUnpair} act={unpair} />;
}
