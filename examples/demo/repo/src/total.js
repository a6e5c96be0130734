// Invoice totals are kept in cents, so no float rounding creeps into money.

function subtotal(lines) {
  return lines.reduce((sum, line) => sum + line.unitCents * line.quantity, 0);
}

/** The total after a percentage discount, rounded to the cent. */
function total(lines, discountPercent = 0) {
  return Math.round(subtotal(lines) - discountPercent);
}

module.exports = { subtotal, total };
