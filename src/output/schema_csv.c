/*
 * schema_csv.c - result rows as CSV, from their description (schema.h):
 * RFC 4180 quoting (out_csv_field), numbers as the JSON writes them,
 * booleans true/false, absent values as empty fields.
 */
#include "output/output.h"
#include "output/schema.h"

#include <inttypes.h>
#include <string.h>

void sc_csv_header(FILE *f, const struct sc_table *t, const char *const *sel)
{
	struct sc_picks ps;

	sc_picks(&ps, t, sel);
	for (size_t i = 0; i < ps.n; i++) {
		if (i)
			fputc(',', f);
		out_csv_field(f, ps.shown[i]);
	}
	fputc('\n', f);
}

static void value(FILE *f, const struct sc_col *c, const struct sc_val *v)
{
	char b[40];

	if (v->null)
		return;
	switch (c->type) {
	case SC_TEXT:
		out_csv_field(f, v->s);
		break;
	case SC_INT:
		fprintf(f, "%" PRId64, v->i);
		break;
	case SC_BOOL:
		fputs(v->i ? "true" : "false", f);
		break;
	default:
		/* NaN and infinities: an empty field */
		if (v->d == v->d) {
			jsonw_fmt_double(b, sizeof(b), v->d);
			if (strcmp(b, "null") != 0)
				fputs(b, f);
		}
		break;
	}
}

static void row_out(FILE *f, const struct sc_picks *ps, const void *row, const struct sc_ctx *x)
{
	struct sc_val v;

	for (size_t i = 0; i < ps->n; i++) {
		if (i)
			fputc(',', f);
		sc_get(ps->col[i], row, x, &v);
		value(f, ps->col[i], &v);
	}
	fputc('\n', f);
}

void sc_csv_row(FILE *f, const struct sc_table *t, const void *row, const struct sc_ctx *x,
		const char *const *sel)
{
	struct sc_picks ps;

	sc_picks(&ps, t, sel);
	row_out(f, &ps, row, x);
}

void sc_csv_rows(FILE *f, const struct sc_table *t, const void *rows, size_t n,
		 const struct sc_ctx *x, const char *const *sel)
{
	struct sc_ctx rx = x ? *x : (struct sc_ctx){0};
	struct sc_picks ps;

	sc_picks(&ps, t, sel);
	for (size_t i = 0; i < n; i++) {
		rx.index = i;
		row_out(f, &ps, sc_row(t, rows, i), &rx);
	}
}
