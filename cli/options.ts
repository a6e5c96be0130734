import { InvalidArgumentError, Option } from 'commander';

/** A whole number of at least 1, or a usage error (commander prints it with the help and exits 1). */
export function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < 1) {
    throw new InvalidArgumentError('expected a whole number of at least 1.');
  }
  return parsed;
}

/** `--limit <n>`: how many rows a list prints (default 20). */
export function limitOption(): Option {
  return new Option('--limit <n>', 'how many').argParser(positiveInteger).default(20);
}
