import { expect } from 'vitest';
import { NodeApiError } from '../../src/renderer/src/api/client';

/** The NodeApiError a screen's call to the node failed with (fails the test if it did not fail so). */
export async function nodeApiFailureOf(promise: Promise<unknown>): Promise<NodeApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NodeApiError);
  return error as NodeApiError;
}
