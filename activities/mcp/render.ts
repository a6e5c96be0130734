/** One block of an MCP tool result, as far as rendering needs it (the SDK's content union, loosely). */
interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/**
 * A tool result as text for the model: text blocks as they are; images, audio and binary
 * resources named (never inlined: base64 is noise to a model and fills the window); links and
 * embedded text resources with their URI; structured content as JSON when there is no text.
 */
export function renderContent(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const parts = blocks.map((block) => {
    if (block.type === 'text') return String(block.text ?? '');
    if (block.type === 'image' || block.type === 'audio') {
      return `[${block.type} ${block.mimeType ?? ''}, ${Math.floor(((block.data?.length ?? 0) * 3) / 4)} bytes, not shown]`;
    }
    if (block.type === 'resource_link') return `[resource ${block.uri ?? ''}${block.name ? ` (${block.name})` : ''}]`;
    if (block.type === 'resource') {
      const resource = block.resource ?? {};
      if (typeof resource.text === 'string') return `[resource ${resource.uri ?? ''}]\n${resource.text}`;
      return `[resource ${resource.uri ?? ''} ${resource.mimeType ?? ''}, binary, not shown]`;
    }
    return `[${String(block.type)} content, not shown]`;
  });
  const text = parts.join('\n');
  if (text.trim() === '' && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 1);
  return text;
}

/**
 * Bounds a result to `max` characters like every tool result: its head and tail, with the cut
 * said in the middle (how much, and that the server's answer was longer).
 */
export function boundResult(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const tail = Math.floor(max / 3);
  const head = max - tail;
  const cut = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n[… ${cut} characters of the server's answer cut: it was ${text.length} characters, over the ${max}-character bound …]\n${text.slice(-tail)}`,
    truncated: true,
  };
}
