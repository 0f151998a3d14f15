/**
 * The PostgreSQL adapter on a Citus cluster (CITUS_URL): the store contract, and what only a
 * distributed deployment has to show.
 */
import { after } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/open.js';
import { citusSkipReason, createCitusSchema, type CitusSchema } from '../support/citus.js';
import { storeContract } from './contract.js';

const schemas: CitusSchema[] = [];
after(async () => {
  for (const schema of schemas) await schema.drop();
});

async function freshSchema(): Promise<CitusSchema> {
  const schema = await createCitusSchema();
  schemas.push(schema);
  return schema;
}

if (!citusSkipReason) {
  storeContract('Citus', async (options) => openPostgresStore({ url: (await freshSchema()).url, ...options }));
}
