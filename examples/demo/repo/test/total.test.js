const test = require('node:test');
const assert = require('node:assert/strict');
const { subtotal, total } = require('../src/total');

const lines = [
  { unitCents: 1250, quantity: 2 },
  { unitCents: 500, quantity: 1 },
];

test('subtotal adds every line', () => {
  assert.equal(subtotal(lines), 3000);
});

test('total without a discount is the subtotal', () => {
  assert.equal(total(lines), 3000);
});

test('total applies a percentage discount', () => {
  assert.equal(total(lines, 10), 2700);
});
