/**
 * The values a list of users is filtered by, one schema each, taken alike by the API's query
 * parameters (`filter[email]`, …) and the export's options (`--email`, …): both refuse the same
 * values with the same words. The filters by subscription (status, resource) are entitlement.ts's.
 */
import { StoredCatalogueId } from './catalogue.js';
import { FilterValue } from './schema.js';

export const UserFilterValues = {
  email: FilterValue(254, 'A whole address (matched without regard to case), or a domain when it has no @.'),
  circulationNumber: FilterValue(50),
  newsletter: { ...StoredCatalogueId, description: 'Only the members of this newsletter.' },
  licenceDomain: FilterValue(
    255,
    'Only the owners of a site licence for this email domain: one whose emailDomains admit a reader at it (the ' +
      'domain, or the wildcard of a parent) or below it (its own wildcard); active or not. A wildcard (*.uni.example) ' +
      'finds the licences naming it as written.',
  ),
  product: {
    ...StoredCatalogueId,
    description: 'With filter[status]=active: only users with an active subscription of this product.',
  },
};
