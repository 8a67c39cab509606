// The result tables as the server describes them (GET /api/schema, written
// from the C schema by src/output/schema_page.c): each column's page title
// and formatter, and the step-time roles. The shell loads it once before a
// view renders (loadSchema); views build their table columns with
// columns(table, specs) and name chart series with title(table, col), so a
// schema table's column titles are written in C only. A view writes a title
// itself only for a column it derives (a row number, a value relative to
// another, a joined list) or one whose title depends on the rows.

let doc = null;
let loading = null;
const byTable = new Map(); // table -> Map(column name -> column)

/** Loads /api/schema once with api(path); resolves to the document. */
export function loadSchema(api) {
  if (!loading) {
    loading = api('/api/schema').then((d) => {
      doc = d;
      byTable.clear();
      for (const [name, t] of Object.entries(d.tables || {})) byTable.set(name, new Map(t.columns.map((c) => [c.name, c])));
      return d;
    }).catch((e) => { loading = null; throw e; });
  }
  return loading;
}

/** Column col of table (its schema description), or null. */
export function column(table, col) {
  return byTable.get(table)?.get(col) || null;
}

/** The page title of column col of table (the column name before the schema is loaded). */
export function title(table, col) {
  const c = column(table, col);
  return c ? (c.page ?? c.title) : col;
}

/** createTable columns for table: each spec is a column name or {key, ...} (col: the schema
 * column when it differs from key); title and fmt come from the schema unless the spec gives
 * them. Falsy specs stay out. */
export function columns(table, specs) {
  return specs.filter(Boolean).map((s) => {
    const spec = typeof s === 'string' ? { key: s } : s;
    const c = column(table, spec.col ?? spec.key);
    return { title: c ? (c.page ?? c.title) : spec.key, fmt: c?.fmt, ...spec };
  });
}

/** The step-time roles in priority order: [{key: 'kernel_us', name: 'Kernel'}, ...]. */
export function roles() {
  return doc?.roles || [];
}

/** parts ([{key, ...}]) with name: the page title of their column of table (chart series). */
export function named(table, parts) {
  return parts.map((p) => ({ ...p, name: title(table, p.key) }));
}
