/*
 * schema_term.c - result rows as terminal table cells (table.h), from
 * their description (schema.h): each unit has one display format.
 */
#include "output/schema.h"
#include "output/table.h"

int sc_term_cols(struct tb_col *cols, int max, const struct sc_table *t, const char *const *sel,
		 int trunc)
{
	int n = 0, truncated = 0;

	for (size_t i = 0, k = sc_sel_count(t, sel); i < k && n < max; i++) {
		const char *shown;
		const struct sc_col *c = sc_sel_col(t, sel, i, &shown);
		int text = c && c->type == SC_TEXT;

		if (!c)
			continue;
		if (shown == c->name && c->title)
			shown = c->title;
		cols[n].title = shown;
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
	struct sc_val v;

	for (size_t i = 0, k = sc_sel_count(t, sel); i < k; i++) {
		const char *shown;
		const struct sc_col *c = sc_sel_col(t, sel, i, &shown);

		if (!c)
			continue;
		sc_get(c, row, x, &v);
		cell(tb, c, &v);
	}
}
