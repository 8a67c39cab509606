// Reusable data table: sortable headers, substring search, paging (50 rows/page),
// formatted numbers. DOM hooks: table-<name>, search-<name>, th-<name>-<key>,
// pager-<name>, page-next-<name>, page-prev-<name>.
import { h, formatters } from './util.js';
import { keep, kept, keeping } from './keep.js';

/**
 * createTable({
 *   name: 'operators',
 *   columns: [{ key, title, fmt: 'us'|'bytes'|'pct'|'num'|'int'|'text'|fn(value,row), align, tip,
 *               value: fn(row) (optional accessor), cls, width, render: fn(row)->Node }],
 *   rows, sortKey, sortDir: 'asc'|'desc', pageSize: 50, search: true,
 *   onRowClick(row), rowClass(row), footer: [{...row}] (pinned rows, e.g. averages), caption
 * }) -> { el, setRows(rows), setRange? }
 * While a live run is shown (lib/keep.js) a table starts from the sort, search and page its
 * namesake had in the previous render, and setRows keeps the page.
 */
export function createTable(opts) {
  const name = opts.name;
  const columns = opts.columns.filter(Boolean);
  const pageSize = opts.pageSize || 50;
  let rows = opts.rows || [];
  let sortKey = opts.sortKey ?? null;
  let sortDir = opts.sortDir || 'desc';
  let query = '';
  let page = 0;
  let view = rows;
  const kkey = 'table:' + name;
  const k = kept(kkey);
  if (k) ({ sortKey, sortDir, query, page } = k);
  const remember = () => keep(kkey, { sortKey, sortDir, query, page, raw: search.value });

  const getv = (c, r) => (c.value ? c.value(r) : r[c.key]);
  // a named formatter gets the value only (fmtNum(v, digits) must not take the row for digits);
  // a function gets (value, row)
  const fmtOf = (c) => {
    if (typeof c.fmt === 'function') return c.fmt;
    const f = formatters[c.fmt || 'text'] || formatters.text;
    return (v) => f(v);
  };
  const isNumeric = (c) => c.numeric || (c.fmt && c.fmt !== 'text' && c.fmt !== 'bool' && typeof c.fmt === 'string');

  const root = h('div', { class: 'tbl', testid: `table-${name}` });
  const search = h('input', {
    type: 'search', class: 'tbl-search', placeholder: opts.searchPlaceholder || 'Search…',
    testid: `search-${name}`, 'aria-label': `Search ${name}`,
  });
  const count = h('span', { class: 'tbl-count' });
  const tools = h('div', { class: 'tbl-tools' },
    opts.caption ? h('span', { class: 'tbl-caption' }, opts.caption) : null,
    opts.search === false ? null : search, count);
  const table = h('table', { class: 'grid' });
  const thead = h('thead');
  const tbody = h('tbody');
  const tfoot = h('tfoot');
  table.append(thead, tbody, tfoot);
  const scroller = h('div', { class: 'tbl-scroll' }, table);
  const prev = h('button', { class: 'btn small', testid: `page-prev-${name}`, title: 'Previous page' }, '‹ Prev');
  const next = h('button', { class: 'btn small', testid: `page-next-${name}`, title: 'Next page' }, 'Next ›');
  const first = h('button', { class: 'btn small', title: 'First page' }, '«');
  const last = h('button', { class: 'btn small', title: 'Last page' }, '»');
  const pinfo = h('span', { class: 'tbl-pinfo' });
  const pager = h('div', { class: 'tbl-pager', testid: `pager-${name}` }, first, prev, pinfo, next, last);
  root.append(tools, scroller, pager);
  if (k && k.raw) search.value = k.raw;

  // header
  const hr = h('tr');
  const ths = new Map();
  for (const c of columns) {
    const th = h('th', {
      testid: `th-${name}-${c.key}`, class: (isNumeric(c) || c.align === 'right' ? 'num' : '') + (c.sortable === false ? '' : ' sortable'),
      title: c.tip || c.title, style: c.width ? { width: c.width } : null,
    }, h('span', { class: 'th-label' }, c.title), h('span', { class: 'sort-ind' }));
    if (c.sortable !== false) {
      th.addEventListener('click', () => {
        if (sortKey === c.key) sortDir = sortDir === 'asc' ? 'desc' : 'asc';
        else { sortKey = c.key; sortDir = isNumeric(c) ? 'desc' : 'asc'; }
        page = 0;
        refresh();
      });
    }
    ths.set(c.key, th);
    hr.appendChild(th);
  }
  thead.appendChild(hr);

  search.addEventListener('input', () => { query = search.value.trim().toLowerCase(); page = 0; refresh(); });
  prev.addEventListener('click', () => { if (page > 0) { page--; renderBody(); } });
  next.addEventListener('click', () => { if (page < pages() - 1) { page++; renderBody(); } });
  first.addEventListener('click', () => { page = 0; renderBody(); });
  last.addEventListener('click', () => { page = pages() - 1; renderBody(); });

  const pages = () => Math.max(1, Math.ceil(view.length / pageSize));

  function cmp(a, b) {
    if (a === b) return 0;
    const an = a === null || a === undefined || (typeof a === 'number' && Number.isNaN(a));
    const bn = b === null || b === undefined || (typeof b === 'number' && Number.isNaN(b));
    if (an) return 1; // nulls last regardless of direction
    if (bn) return -1;
    if (typeof a === 'number' && typeof b === 'number') return sortDir === 'asc' ? a - b : b - a;
    if (typeof a === 'boolean' && typeof b === 'boolean') return sortDir === 'asc' ? (a - b) : (b - a);
    const r = String(a).localeCompare(String(b), undefined, { numeric: true });
    return sortDir === 'asc' ? r : -r;
  }

  function refresh() {
    remember();
    let v = rows;
    if (query) {
      const textCols = columns.filter((c) => !isNumeric(c) || c.searchable);
      v = v.filter((r) => textCols.some((c) => {
        const x = getv(c, r);
        return x !== null && x !== undefined && String(x).toLowerCase().includes(query);
      }));
    }
    if (sortKey) {
      const c = columns.find((cc) => cc.key === sortKey);
      if (c) {
        v = v.map((r, i) => [r, i]);
        v.sort((x, y) => cmp(getv(c, x[0]), getv(c, y[0])) || x[1] - y[1]);
        v = v.map((x) => x[0]);
      }
    }
    view = v;
    for (const [k, th] of ths) {
      th.classList.toggle('sorted', k === sortKey);
      th.setAttribute('aria-sort', k === sortKey ? (sortDir === 'asc' ? 'ascending' : 'descending') : 'none');
      th.querySelector('.sort-ind').textContent = k === sortKey ? (sortDir === 'asc' ? '▲' : '▼') : '';
    }
    if (page >= pages()) page = pages() - 1;
    renderBody();
  }

  function cell(c, r) {
    const td = h('td', { class: (isNumeric(c) || c.align === 'right' ? 'num' : '') + (c.cls ? ' ' + c.cls : '') });
    if (c.render) {
      const out = c.render(r);
      if (out instanceof Node) td.appendChild(out); else td.textContent = out ?? '';
    } else {
      const v = getv(c, r);
      const s = fmtOf(c)(v, r);
      td.textContent = s;
      if (!isNumeric(c) && typeof s === 'string' && s.length > 60) td.title = s;
      if (isNumeric(c) && typeof v === 'number') td.title = String(v);
    }
    return td;
  }

  function renderBody() {
    remember();
    tbody.textContent = '';
    const start = page * pageSize;
    const slice = view.slice(start, start + pageSize);
    const frag = document.createDocumentFragment();
    for (const r of slice) {
      const tr = h('tr');
      if (opts.rowClass) { const rc = opts.rowClass(r); if (rc) tr.className = rc; }
      for (const c of columns) tr.appendChild(cell(c, r));
      if (opts.onRowClick) { tr.classList.add('clickable'); tr.addEventListener('click', () => opts.onRowClick(r, tr)); }
      frag.appendChild(tr);
    }
    if (!slice.length) {
      frag.appendChild(h('tr', { class: 'tbl-none' }, h('td', { colSpan: columns.length }, query ? 'No rows match the search.' : (opts.emptyText || 'No rows.'))));
    }
    tbody.appendChild(frag);
    tfoot.textContent = '';
    for (const r of opts.footer || []) {
      const tr = h('tr', { class: 'tbl-foot' });
      for (const c of columns) tr.appendChild(cell(c, r));
      tfoot.appendChild(tr);
    }
    const total = rows.length;
    count.textContent = query ? `${view.length} of ${total} rows` : `${total} rows`;
    pinfo.textContent = `Page ${page + 1} of ${pages()}`;
    pager.style.display = view.length > pageSize ? '' : 'none';
    prev.disabled = first.disabled = page === 0;
    next.disabled = last.disabled = page >= pages() - 1;
  }

  refresh();

  return {
    el: root,
    setRows(newRows, footer) {
      rows = newRows || [];
      if (footer !== undefined) opts.footer = footer;
      if (!keeping()) page = 0;
      refresh();
    },
    get rows() { return view; },
  };
}
