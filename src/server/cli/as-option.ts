import { InvalidArgumentError } from 'commander';

/** Wraps a validator so commander prints its message as a usage error. */
export function asOption(check: (value: string) => unknown): (value: string) => string {
  return (value) => {
    try {
      check(value);
      return value;
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}
