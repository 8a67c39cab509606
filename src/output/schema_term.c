/*
 * schema_term.c - result rows as terminal table cells (table.h), from
 * their description (schema.h): each unit has one display format.
 */
#include "output/schema.h"
#include "output/table.h"

int sc_term_cols(struct tb_col *cols, int max, const struct sc_table *t, const char *const *sel,
		 int trunc)
{
	struct sc_picks ps;
	int n = 0, truncated = 0;

	sc_picks(&ps, t, sel);
	for (size_t i = 0; i < ps.n && n < max; i++) {
		const struct sc_col *c = ps.col[i];
		int text = c->type == SC_TEXT;

		cols[n].title = ps.shown[i] == c->name && c->title ? c->title : ps.shown[i];
		cols[n].align = text || c->type == SC_BOOL ? TB_LEFT : TB_RIGHT;
		cols[n].trunc = text && !truncated ? trunc : TB_TRUNC_NONE;
		truncated |= text;
		n++;
	}
	return n;
}

static void cell(struct table *tb, const struct sc_col *c, const struct sc_val *v)
{
	char b[48];

	if (v->null || v->undefined) {
		tb_cell(tb, "-");
		return;
	}
	switch (c->type) {
	case SC_TEXT:
		tb_cell(tb, "%s", v->s ? v->s : "-");
		return;
	case SC_BOOL:
		tb_cell(tb, "%s", v->i ? "yes" : "no");
		return;
	default:
		break;
	}
	switch (c->unit) {
	case SC_US:
		tb_cell(tb, "%s", tb_fmt_us(b, sizeof(b), v->ns));
		break;
	case SC_BYTES:
		tb_cell(tb, "%s",
			tb_fmt_bytes(b, sizeof(b), c->type == SC_INT ? (double)v->i : v->d));
		break;
	case SC_RATIO:
		tb_cell(tb, "%s", tb_fmt_pct(b, sizeof(b), v->d));
		break;
	case SC_PERCENT:
		tb_cell(tb, "%.2f%%", v->d);
		break;
	default:
		if (c->type == SC_INT)
			tb_cell(tb, "%s", tb_fmt_int(b, sizeof(b), v->i));
		else
			tb_cell(tb, "%.2f", v->d);
		break;
	}
}

void sc_term_row(struct table *tb, const struct sc_table *t, const void *row,
		 const struct sc_ctx *x, const char *const *sel)
{
	struct sc_picks ps;
	struct sc_val v;

	sc_picks(&ps, t, sel);
	for (size_t i = 0; i < ps.n; i++) {
		sc_get(ps.col[i], row, x, &v);
		cell(tb, ps.col[i], &v);
	}
}
