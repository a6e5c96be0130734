/** A header fact: its name and its value as HTML (already escaped); an empty value is left out. */
export type Fact = [name: string, html: string];

/** The header's facts as a description list (two columns on a wide screen, stacked on a phone). */
export function facts(list: readonly Fact[]): string {
  const rows = list.filter(([, html]) => html.trim() !== '').map(([name, html]) => `<div><dt>${name}</dt><dd>${html}</dd></div>`);
  return `<dl class="facts">${rows.join('')}</dl>`;
}
