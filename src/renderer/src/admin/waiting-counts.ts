import { createStore } from 'zustand/vanilla';
import { adminStore } from './admin-store';

const api = () => adminStore.getState().api();

/**
 * What waits for staff here, for the nav tab: open exceptions (or a refund whose answer was lost)
 * and card pay-backs not finished; null until known.
 */
export const waitingCounts = createStore<{ count: number | null; paybacks: number | null }>()(() => ({ count: null, paybacks: null }));

export const refreshOpenCount = () =>
  api()
    .paymentExceptions('open', 0, 1)
    .then((found) => waitingCounts.setState({ count: found.total }))
    .catch(() => waitingCounts.setState({ count: null }));

export const refreshPaybackCount = () =>
  api()
    .unfinishedPaybacks(0, 1)
    .then((found) => waitingCounts.setState({ paybacks: found.total }))
    .catch(() => waitingCounts.setState({ paybacks: null }));
