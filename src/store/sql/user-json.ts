/**
 * A user as the JSON text of its resource object (type, id and attributes; the links depend on
 * the request and are added by the caller), rendered by the database so that a list page is not
 * turned into values and back again field by field. What the user's row alone writes is kept on
 * it (`json_text_0`, `json_text_1`), written by triggers whenever the row is (sqlite/user-text.ts,
 * postgres/user-text.ts), so a page reads it rather than writing it again; the newsletters, from
 * another table, are written as the page is read. The SQL is generated from the definitions the
 * general path renders from (the read attribute schema, `USER_FIELDS`, the nested groups,
 * `USER_JSON_FIELDS`, `columnOf`), so a field added there is rendered here too, or the statement
 * cannot be built; test/http/routes/users-rendered.test.ts holds both paths to the same bytes.
 *
 * Attributes come in the read schema's order, as the general path's serializer writes them.
 * Strings are quoted by the database (json-text.ts). A JSON document (`demographics`) is the one
 * thing written in JavaScript instead: PostgreSQL keeps it as jsonb, whose text has its own spacing
 * and key order, and the general path writes it through its schema, which leaves out any member
 * the schema does not name.
 */
import fastJson from 'fast-json-stringify';
import { USER_FIELDS, USER_GROUPS, USER_JSON_FIELDS, UserAttributes, USERS } from '../../domain/user.js';
import { join, raw, sql, type Dialect, type Sql } from './builder.js';
import { Beyond, JSON_TEXT, keptText, literal, type JsonText, type KeptText, type Piece } from './json-text.js';
import { columnOf } from './users.js';

/** What of a user only a dialect can say. */
interface UserJsonText extends JsonText {
  /** `last_sign_in_at` as `formatInstant` writes it, quoted, or `null` (only ever an instant of this era). */
  lastSignIn: string;
  /** The user's newsletter ids as a JSON array, in the order the general path reads them. */
  newsletters: string;
}

const USER_JSON_TEXT: Record<Dialect, UserJsonText> = {
  sqlite: {
    ...JSON_TEXT.sqlite,
    lastSignIn: `CASE WHEN last_sign_in_at IS NULL THEN 'null'
      ELSE strftime('"%Y-%m-%dT%H:%M:%S+00:00"', last_sign_in_at, 'unixepoch') END`,
    newsletters: `(SELECT json_group_array(newsletter_id) FROM
      (SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id ORDER BY newsletter_id))`,
  },
  postgres: {
    ...JSON_TEXT.postgres,
    // Seconds truncated, as `seconds()` floors the general path's Date (sign-ins are after 1970).
    lastSignIn: `CASE WHEN last_sign_in_at IS NULL THEN 'null'
      ELSE '"' || to_char(last_sign_in_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '+00:00"' END`,
    // array_to_json writes compactly (json_agg would put a space after each comma).
    newsletters: `array_to_json(ARRAY(SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id
      ORDER BY newsletter_id COLLATE "C"))::text`,
  },
};

const JSON_FIELDS = new Set(USER_JSON_FIELDS);
const PROFILE_FIELDS = new Set(USER_FIELDS);
const READ_SCHEMAS = UserAttributes.properties as Record<string, object>;

/** A JSON document, written through its read schema as the general path's serializer writes it. */
function documentWriter(attribute: string): Piece {
  const serialize = fastJson(READ_SCHEMAS[attribute] as Parameters<typeof fastJson>[0]) as (value: unknown) => string;
  return {
    column: columnOf(attribute),
    // SQLite answers the document as text, PostgreSQL (jsonb) already parsed.
    write: (value) => serialize(typeof value === 'string' ? JSON.parse(value) : value),
  };
}

/** A nested group: null when none of its fields is set, otherwise every field of it in order. */
function groupValue(attribute: string, fields: readonly string[], dialect: JsonText): Sql {
  const columns = fields.map((field) => columnOf(`${attribute}.${field}`));
  const members = fields.flatMap((field, i) => [
    literal(`${i === 0 ? '{' : ','}${JSON.stringify(field)}:`),
    raw(dialect.text(columns[i]!)),
  ]);
  const unset = raw(columns.map((c) => `${c} IS NULL`).join(' AND '));
  return sql`CASE WHEN ${unset} THEN 'null' ELSE ${join(members, ' || ')} || '}' END`;
}

/** How an attribute's value is written: by SQL, or here. */
function attributeValue(attribute: string, dialect: UserJsonText): Piece {
  if (attribute === 'email') return raw(dialect.text('email'));
  if (attribute === 'newsletters') return new Beyond(raw(dialect.newsletters));
  if (attribute === 'lastSignInAt') return raw(dialect.lastSignIn);
  if (JSON_FIELDS.has(attribute)) return documentWriter(attribute);
  const group = USER_GROUPS[attribute];
  if (group) return groupValue(attribute, group, dialect);
  if (PROFILE_FIELDS.has(attribute)) return raw(dialect.text(columnOf(attribute)));
  throw new Error(`The user attribute ${attribute} has no rendering in SQL (src/store/sql/user-json.ts).`);
}

/** What the columns that keep a user's text are called, before their number. */
const USER_TEXT_COLUMN = 'json_text';

function userText(dialect: UserJsonText): KeptText {
  const attributes = Object.keys(READ_SCHEMAS).flatMap((attribute, i) => [
    `${i === 0 ? '' : ','}${JSON.stringify(attribute)}:`,
    attributeValue(attribute, dialect),
  ]);
  return keptText(
    [`{"type":${JSON.stringify(USERS)},"id":"`, raw('CAST(id AS TEXT)'), '","attributes":{', ...attributes, '}}'],
    USER_TEXT_COLUMN,
    dialect,
  );
}

/**
 * Users as JSON text, per dialect, generated once: select `read.columns` after `id` from `users`;
 * `kept` is what the triggers keep on the row.
 */
export const USER_JSON: Record<Dialect, KeptText> = {
  sqlite: userText(USER_JSON_TEXT.sqlite),
  postgres: userText(USER_JSON_TEXT.postgres),
};
