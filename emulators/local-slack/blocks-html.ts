import { escapeHtml, mrkdwnToHtml, plainToHtml, type NameLookup } from './mrkdwn-html';

type Json = Record<string, unknown>;

/** A text object (`mrkdwn` or `plain_text`) as HTML. */
function textObject(value: unknown, names: NameLookup): string {
  if (!isObject(value) || typeof value.text !== 'string') return '';
  if (value.type === 'mrkdwn') return mrkdwnToHtml(value.text, names);
  return plainToHtml(value.text, value.emoji !== false);
}

/** A button as Slack draws it; the page is read-only, so it cannot be pressed here. */
function element(value: unknown, names: NameLookup): string {
  if (!isObject(value)) return '';
  if (value.type === 'button') {
    const style = value.style === 'danger' || value.style === 'primary' ? ` ${value.style}` : '';
    return `<button class="button${style}" disabled title="read-only view">${textObject(value.text, names)}</button>`;
  }
  if (value.type === 'image' && typeof value.image_url === 'string') {
    return `<img class="thumb" src="${escapeHtml(value.image_url)}" alt="${escapeHtml(text(value.alt_text))}">`;
  }
  if (value.type === 'mrkdwn' || value.type === 'plain_text') return `<span>${textObject(value, names)}</span>`;
  return `<span class="unsupported">[${escapeHtml(text(value.type) || 'element')}]</span>`;
}

/** One Block Kit block as HTML; a block this page does not know is named, not dropped. */
export function blockToHtml(block: unknown, names: NameLookup): string {
  if (!isObject(block)) return '';
  switch (block.type) {
    case 'section': {
      const fields = Array.isArray(block.fields)
        ? `<div class="fields">${block.fields.map((field) => `<div>${textObject(field, names)}</div>`).join('')}</div>`
        : '';
      const accessory = block.accessory ? `<div class="accessory">${element(block.accessory, names)}</div>` : '';
      return `<div class="block section"><div class="section-body">${textObject(block.text, names)}${fields}</div>${accessory}</div>`;
    }
    case 'context':
      return `<div class="block context">${(Array.isArray(block.elements) ? block.elements : []).map((e) => element(e, names)).join(' ')}</div>`;
    case 'actions':
      return `<div class="block actions">${(Array.isArray(block.elements) ? block.elements : []).map((e) => element(e, names)).join(' ')}</div>`;
    case 'divider':
      return '<hr class="block divider">';
    case 'header':
      return `<div class="block header">${textObject(block.text, names)}</div>`;
    case 'image':
      return typeof block.image_url === 'string'
        ? `<div class="block image"><img src="${escapeHtml(block.image_url)}" alt="${escapeHtml(text(block.alt_text))}"></div>`
        : '';
    default:
      return `<div class="block unsupported">(a ${escapeHtml(text(block.type) || 'unknown')} block this page does not draw)</div>`;
  }
}

export function blocksToHtml(blocks: readonly unknown[], names: NameLookup): string {
  return blocks.map((block) => blockToHtml(block, names)).join('');
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
