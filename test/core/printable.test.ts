import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printable, printableJson } from '../../src/core/index.js';

/** The console's halt as issue #41 tried it: screen cleared, window title set, a line forged. */
const OPERATOR = 'eve\u001b[2J\u001b]0;pwned\u0007';

/** Any C0 or C1 control, or DEL, left in a string. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

void describe('printable', () => {
  it('shows ESC, BEL, CR, LF, tab, DEL and C1 controls as escapes', () => {
    assert.equal(printable(OPERATOR), 'eve\\u001b[2J\\u001b]0;pwned\\u0007');
    assert.equal(printable('a\nb\r\tc'), 'a\\nb\\r\\tc');
    assert.equal(printable('x\u007fy\u009b2Jz\u0085'), 'x\\u007fy\\u009b2Jz\\u0085');
    assert.equal(printable('\u0000'), '\\u0000');
  });

  it('leaves every other character as it is', () => {
    const text = 'XBT/USD: Müller paid 1,5 € (ok) \\n is two characters 日本 🚀 \u00a0';
    assert.equal(printable(text), text);
  });

  it('gives JSON with no raw control character that parses back to the same value', () => {
    const value = { by: OPERATOR, reason: 'a\nb', ref: 'x\u007f\u009by' };
    const json = printableJson(value);
    assert.doesNotMatch(json, RAW_CONTROL);
    assert.deepEqual(JSON.parse(json), value);
  });
});
