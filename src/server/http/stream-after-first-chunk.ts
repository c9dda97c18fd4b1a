import { Readable } from 'node:stream';

/**
 * A stream of `chunks` once their first has come: a refusal or failure before it (a 409, a 429, a
 * database that cannot be read) is thrown here, for the route to answer as the error it is, before
 * it has set a file's headers. Afterwards the stream owns the generator: destroyed (a client gone,
 * `stream.destroy()`), it returns it, so its `finally` runs from the first chunk on.
 */
export async function streamAfterFirstChunk(chunks: AsyncGenerator<string>): Promise<Readable> {
  const first = await chunks.next();
  async function* all(): AsyncGenerator<string> {
    try {
      if (!first.done) yield first.value;
      yield* chunks;
    } finally {
      // Returned before `yield*` began: the generator waits at its first chunk.
      await chunks.return(undefined);
    }
  }
  return Readable.from(all(), { objectMode: false });
}
