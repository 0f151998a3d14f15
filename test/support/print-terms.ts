/**
 * The terms of a print subscription as the domain's print rules read them: delivered every day
 * through 2026 unless a test says otherwise.
 */
import { EVERY_DAY } from '../../src/domain/delivery-days.js';
import type { PrintTerms } from '../../src/domain/print.js';

const at = (iso: string) => Date.parse(iso) / 1000;

export const printTerms = (values: Partial<PrintTerms> = {}): PrintTerms => ({
  id: '7',
  dateStarted: at('2026-01-01T00:00:00Z'),
  dateEnded: at('2027-01-01T00:00:00Z'),
  resource: 'print',
  deliveryDays: null,
  productResource: null,
  productDays: EVERY_DAY,
  ...values,
});
