/**
 * A payload the workflow could not decode: an unknown `encoding` or bytes that are not the JSON
 * they claim to be, as `temporal workflow signal --input-meta encoding=…` or `--input-base64`
 * can send by mistake (workflows/payload-converter.ts makes one). Its tag keeps it from passing
 * for a JSON object, so the input checks (shape.ts) refuse or drop it like any other malformed input.
 */
export class UndecodablePayload {
  constructor(
    readonly encoding: string,
    readonly reason: string,
  ) {}

  get [Symbol.toStringTag](): string {
    return 'UndecodablePayload';
  }
}
