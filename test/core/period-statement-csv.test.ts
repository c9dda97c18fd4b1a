import { describe, expect, it } from 'vitest';
import { plainDecimal } from '../../src/core/dashboard/period-statement-csv';

// The statement file's fields as a spreadsheet reads them (the whole file is checked over HTTP in
// test/api/dashboard-period-statement and downloaded in Chromium in test/e2e/backoffice-period-statement).
describe('the statement file’s fields', () => {
  it('writes amounts as plain decimals in the currency’s units, whatever the sign and digits', () => {
    expect([plainDecimal(1250, 2), plainDecimal(-5, 2), plainDecimal(0, 2), plainDecimal(-123456789, 2)]).toEqual(['12.50', '-0.05', '0.00', '-1234567.89']);
    expect([plainDecimal(700, 0), plainDecimal(-7, 0), plainDecimal(1234, 3)]).toEqual(['700', '-7', '1.234']);
  });

});
