import { Alert, Anchor } from '@mantine/core';
import { useEffect, useState } from 'react';
import { adminStore } from './admin-store';
import { useAdminStrings } from './strings';

/**
 * On a store node paired with a chain, above the sign-in: staff are central's (never pulled to the
 * stores), so the chain's owner and managers signing in here were only told their password was
 * wrong. Says where the chain's back office is. Nothing on central or an unpaired node.
 */
export function PairedStoreNote() {
  const t = useAdminStrings();
  const [central, setCentral] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    const api = adminStore.getState().api();
    // /sync/status is a store's route: asked only of a paired store (central has none, a 404 in the console).
    api
      .health()
      .then((health) => (health.role === 'store' && health.checks.sync !== null ? api.syncStatus() : null))
      .then((status) => {
        if (!stopped && status?.paired && status.central) setCentral(status.central);
      })
      // Central (no store sync) or a node out of reach: nothing to add to the form.
      .catch(() => undefined);
    return () => {
      stopped = true;
    };
  }, []);
  if (central === null) return null;
  const backOffice = `${central.replace(/\/+$/, '')}/admin`;
  return (
    // A standing note, not an error: not announced as an alert.
    <Alert color="blue" role="note" data-testid="paired-store-note">
      {t.pairedStoreBefore}
      <Anchor href={backOffice}>{backOffice}</Anchor>
      {t.pairedStoreAfter}
    </Alert>
  );
}
