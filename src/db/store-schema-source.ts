import type { Database } from './open-database.js';

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

/**
 * The TypeScript source of the Kysely table types for a migrated SQLite store: one interface
 * per table, columns under their SQL names. `store-schema.ts` is this function's output over
 * the backend's migrations, and a test keeps the two equal (`UPDATE_STORE_SCHEMA=1` rewrites
 * it), so the types cannot drift from the migrations. A column the insert may leave out (a
 * default, or the integer key SQLite assigns) is `Generated`.
 */
export function storeSchemaSource(db: Database, interfaceName: string): string {
  const tables = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .all()
    .map((row) => row.name);
  const lines = [
    '// Generated from the SQLite migrations by src/db/store-schema-source.ts; do not edit by hand.',
    '// Rewrite with: UPDATE_STORE_SCHEMA=1 npm test -- test/db/store-schema.test.ts',
    "import type { Generated } from 'kysely';",
    '',
  ];
  for (const table of tables) {
    lines.push(`export interface ${typeName(table)}Table {`);
    const columns = db.prepare<[], ColumnInfo>(`SELECT * FROM pragma_table_info('${table.replaceAll("'", "''")}')`).all();
    const integerKey = columns.filter((column) => column.pk > 0).length === 1
      && columns.some((column) => column.pk > 0 && column.type.toUpperCase() === 'INTEGER');
    for (const column of columns) {
      const base = tsType(column.type);
      const type = column.notnull || column.pk ? base : `${base} | null`;
      const generated = column.dflt_value !== null || (integerKey && column.pk > 0);
      lines.push(`  ${column.name}: ${generated ? `Generated<${type}>` : type};`);
    }
    lines.push('}', '');
  }
  lines.push(`export interface ${interfaceName} {`);
  for (const table of tables) lines.push(`  ${table}: ${typeName(table)}Table;`);
  lines.push('}', '');
  return lines.join('\n');
}

const typeName = (table: string) => table.split('_').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');

function tsType(sqlType: string): string {
  const type = sqlType.toUpperCase();
  if (type.includes('INT') || type === 'REAL' || type.includes('DOUBLE') || type.includes('NUMERIC')) return 'number';
  if (type === 'BLOB') return 'Buffer';
  if (type === 'ANY' || type === '') return 'unknown';
  return 'string';
}
