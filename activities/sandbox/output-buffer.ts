import { StringDecoder } from 'node:string_decoder';

/**
 * Keeps the head and the tail of a command's output within a character budget, so a
 * chatty build cannot flood memory or the model's context; what was dropped is counted.
 */
export class OutputBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;
  private readonly decoder = new StringDecoder('utf8');
  private readonly half: number;

  constructor(readonly limit: number) {
    this.half = Math.floor(limit / 2);
  }

  push(chunk: Buffer | string): void {
    this.append(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
  }

  private append(text: string): void {
    if (text.length === 0) return;
    if (this.dropped === 0 && this.head.length + this.tail.length + text.length <= this.limit) {
      this.head += text;
      return;
    }
    if (this.dropped === 0 && this.tail.length === 0) {
      // First overflow: split what we have into the kept head and the rolling tail.
      const all = this.head + text;
      this.head = all.slice(0, this.half);
      this.tail = all.slice(this.half);
    } else {
      this.tail += text;
    }
    const keep = this.limit - this.half;
    if (this.tail.length > keep) {
      this.dropped += this.tail.length - keep;
      this.tail = this.tail.slice(this.tail.length - keep);
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  /** The kept text; when output was dropped, a line in the middle says how much. */
  text(): string {
    this.append(this.decoder.end());
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n[… output truncated: ${this.dropped} characters omitted from the middle …]\n${this.tail}`;
  }
}
