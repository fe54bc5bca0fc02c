/**
 * Text that others wrote (an operator name or a halt reason from the console, an order ref, an
 * exchange's error, a pair name) made safe to print for a person: every C0 control (ESC, BEL, CR,
 * LF, tab...), DEL, every C1 control and the bidirectional overrides are shown as escapes (`\n`,
 * `\u001b`, `\u202e`), so none can clear the screen, set the window title, move the cursor, start
 * a line of its own or reorder what follows. Everything else,
 * non-ASCII letters included, is left as it is. Apply it where text is printed, to whole lines:
 * the line breaks a printer adds itself are the only ones that reach the terminal.
 */
// The control characters themselves are what this must match.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const escaped = (c: string): string =>
  NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export function printable(text: string): string {
  return text.replace(CONTROL, escaped);
}

/**
 * Only DEL and the C1 controls escaped: for text whose C0 controls are a printer's own (a line
 * break, a colour's ESC) and whose strings were JSON-escaped, which leaves these raw.
 */
export function printableBeyondC0(text: string): string {
  return text.replace(/[\u007f-\u009f]/g, escaped);
}

/** JSON for a terminal: JSON.stringify escapes C0 controls itself. Still valid JSON. */
export function printableJson(value: unknown): string {
  return printableBeyondC0(JSON.stringify(value) ?? 'null');
}
