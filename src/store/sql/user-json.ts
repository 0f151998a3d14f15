/**
 * A user as the JSON text of its resource object (type, id and attributes; the links depend on
 * the request and are added by the caller), rendered by the database so that a list page is not
 * turned into values and back again field by field. The SQL is generated from the definitions the
 * general path renders from (the read attribute schema, `USER_FIELDS`, the nested groups,
 * `USER_JSON_FIELDS`, `columnOf`), so a field added there is rendered here too, or the statement
 * cannot be built; test/http/routes/users-rendered.test.ts holds both paths to the same bytes.
 *
 * Attributes come in the read schema's order, as the general path's serializer writes them.
 * Strings are quoted by the database (`json_quote`, `to_json`), which escapes them as
 * JSON.stringify does. A JSON document (`demographics`) is the one thing rendered here instead:
 * PostgreSQL keeps it as jsonb, whose text has its own spacing and key order, and the general path
 * writes it through its schema, which leaves out any member the schema does not name.
 */
import fastJson from 'fast-json-stringify';
import { USER_FIELDS, USER_GROUPS, USER_JSON_FIELDS, UserAttributes, USERS } from '../../domain/user.js';
import type { Dialect } from './builder.js';
import { columnOf } from './users.js';

/** How a dialect writes a value as JSON text (never SQL NULL: a NULL would void the whole concatenation). */
interface JsonDialect {
  /** A text column as a JSON string, or `null`. */
  text(column: string): string;
  /** An instant column as `formatInstant` writes it, quoted, or `null`. */
  instant(column: string): string;
  /** The user's newsletter ids as a JSON array, in the order the general path reads them. */
  newsletters: string;
}

const JSON_DIALECTS: Record<Dialect, JsonDialect> = {
  sqlite: {
    text: (column) => `json_quote(${column})`,
    instant: (column) =>
      `CASE WHEN ${column} IS NULL THEN 'null' ELSE strftime('"%Y-%m-%dT%H:%M:%S+00:00"', ${column}, 'unixepoch') END`,
    newsletters: `(SELECT json_group_array(newsletter_id) FROM
      (SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id ORDER BY newsletter_id))`,
  },
  postgres: {
    text: (column) => `coalesce(to_json(${column})::text, 'null')`,
    // Seconds truncated, as `seconds()` floors the general path's Date (instants are after 1970).
    instant: (column) =>
      `CASE WHEN ${column} IS NULL THEN 'null'
        ELSE '"' || to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '+00:00"' END`,
    // array_to_json writes compactly (json_agg would put a space after each comma).
    newsletters: `array_to_json(ARRAY(SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id
      ORDER BY newsletter_id COLLATE "C"))::text`,
  },
};

/** An attribute the database leaves to this module: the column it reads, and how its value is written. */
interface RenderedHere {
  column: string;
  write(value: unknown): string;
}

/** JSON text as an SQL string literal. */
function literal(json: string): string {
  return `'${json.replaceAll("'", "''")}'`;
}

const JSON_FIELDS = new Set(USER_JSON_FIELDS);
const PROFILE_FIELDS = new Set(USER_FIELDS);
const READ_SCHEMAS = UserAttributes.properties as Record<string, object>;

/** A JSON document, written through its read schema as the general path's serializer writes it. */
function documentWriter(attribute: string): RenderedHere {
  const serialize = fastJson(READ_SCHEMAS[attribute] as Parameters<typeof fastJson>[0]) as (value: unknown) => string;
  return {
    column: columnOf(attribute),
    // SQLite answers the document as text, PostgreSQL (jsonb) already parsed.
    write: (value) => serialize(typeof value === 'string' ? JSON.parse(value) : value),
  };
}

/** A nested group: null when none of its fields is set, otherwise every field of it in order. */
function groupValue(attribute: string, fields: readonly string[], dialect: JsonDialect): string {
  const columns = fields.map((field) => columnOf(`${attribute}.${field}`));
  const members = fields.map(
    (field, i) => `${literal(`${i === 0 ? '{' : ','}${JSON.stringify(field)}:`)} || ${dialect.text(columns[i]!)}`,
  );
  return `CASE WHEN ${columns.map((c) => `${c} IS NULL`).join(' AND ')} THEN 'null'
    ELSE ${members.join(' || ')} || '}' END`;
}

/** The SQL that writes an attribute's value as JSON, or how it is written here instead. */
function attributeValue(attribute: string, dialect: JsonDialect): string | RenderedHere {
  if (attribute === 'email') return dialect.text('email');
  if (attribute === 'newsletters') return dialect.newsletters;
  if (attribute === 'lastSignInAt') return dialect.instant('last_sign_in_at');
  if (JSON_FIELDS.has(attribute)) return documentWriter(attribute);
  const group = USER_GROUPS[attribute];
  if (group) return groupValue(attribute, group, dialect);
  if (PROFILE_FIELDS.has(attribute)) return dialect.text(columnOf(attribute));
  throw new Error(`The user attribute ${attribute} has no rendering in SQL (src/store/sql/user-json.ts).`);
}

/**
 * How users are read as JSON text: the columns to select after `id` (SQL that writes a stretch of
 * the text, then a column for an attribute written here, and so on), and how a row's values
 * after the id are put together.
 */
export interface UserJson {
  columns: string;
  assemble(values: readonly unknown[], start: number): string;
}

function userJson(dialect: JsonDialect): UserJson {
  const stretches: string[][] = [[literal(`{"type":${JSON.stringify(USERS)},"id":"`), 'CAST(id AS TEXT)']];
  const here: RenderedHere[] = [];
  let json = '","attributes":{';
  for (const attribute of Object.keys(READ_SCHEMAS)) {
    json += `${json.endsWith('{') ? '' : ','}${JSON.stringify(attribute)}:`;
    const value = attributeValue(attribute, dialect);
    stretches.at(-1)!.push(literal(json));
    json = '';
    if (typeof value === 'string') stretches.at(-1)!.push(value);
    else {
      here.push(value);
      stretches.push([]);
    }
  }
  stretches.at(-1)!.push(literal('}}'));
  const columns = stretches
    .map((stretch, i) => [stretch.join(' || '), ...(i < here.length ? [here[i]!.column] : [])].join(', '))
    .join(', ');
  return {
    columns,
    assemble(values, start) {
      let text = values[start] as string;
      for (let i = 0; i < here.length; i += 1) {
        text += here[i]!.write(values[start + 2 * i + 1]) + (values[start + 2 * i + 2] as string);
      }
      return text;
    },
  };
}

/** Users as JSON text, per dialect, generated once. */
export const USER_JSON: Record<Dialect, UserJson> = {
  sqlite: userJson(JSON_DIALECTS.sqlite),
  postgres: userJson(JSON_DIALECTS.postgres),
};
