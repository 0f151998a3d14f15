/**
 * The countries whose regions the API keeps as two-letter codes (the US and Canada), by the names
 * a spreadsheet spells them out with, in English and, for Canada, French. Import reads a name
 * here as its code; any other text is left for the API's rules to judge.
 */

/** A name as it is looked up: without accents, case, dots, hyphens or doubled spaces; `&` as `and`. */
export function nameKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[.\-'’_]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const US_STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia|Washington DC|Washington D C',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York|New York State',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington|Washington State',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  AS: 'American Samoa',
  GU: 'Guam',
  MP: 'Northern Mariana Islands',
  PR: 'Puerto Rico',
  VI: 'US Virgin Islands|U S Virgin Islands|United States Virgin Islands|Virgin Islands',
  UM: 'United States Minor Outlying Islands|US Minor Outlying Islands',
  AA: 'Armed Forces Americas',
  AE: 'Armed Forces Europe',
  AP: 'Armed Forces Pacific',
};

const CANADIAN_PROVINCES: Record<string, string> = {
  AB: 'Alberta',
  BC: 'British Columbia|Colombie Britannique',
  MB: 'Manitoba',
  NB: 'New Brunswick|Nouveau Brunswick',
  NL: 'Newfoundland and Labrador|Newfoundland|Terre Neuve et Labrador|Terre Neuve',
  NS: 'Nova Scotia|Nouvelle Ecosse',
  NT: 'Northwest Territories|Territoires du Nord Ouest',
  NU: 'Nunavut',
  ON: 'Ontario',
  PE: 'Prince Edward Island|Ile du Prince Edouard',
  QC: 'Quebec|Province de Quebec',
  SK: 'Saskatchewan',
  YT: 'Yukon|Yukon Territory',
};

/** Each name's key, to its code. */
function byName(codes: Record<string, string>): Map<string, string> {
  return new Map(
    Object.entries(codes).flatMap(([code, names]) => names.split('|').map((name) => [nameKey(name), code] as const)),
  );
}

/** The regions of each country kept as codes, by name key. */
export const REGIONS_BY_NAME: Readonly<Record<'US' | 'CA', ReadonlyMap<string, string>>> = {
  US: byName(US_STATES),
  CA: byName(CANADIAN_PROVINCES),
};

/** The country names (and three-letter codes) of the two, by name key. */
export const COUNTRIES_BY_NAME: ReadonlyMap<string, 'US' | 'CA'> = new Map([
  ...['USA', 'U S A', 'US', 'U S', 'United States', 'United States of America', 'America'].map(
    (name) => [nameKey(name), 'US'] as const,
  ),
  ...['CAN', 'Canada'].map((name) => [nameKey(name), 'CA'] as const),
]);
