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
	const struct sc_col *c;
	const char *shown;
	int first = 1;

	for (size_t i = 0, n = sc_sel_count(t, sel); i < n; i++) {
		if ((c = sc_sel_col(t, sel, i, &shown)) == NULL)
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		out_csv_field(f, shown);
	}
	fputc('\n', f);
}

void sc_csv_row(FILE *f, const struct sc_table *t, const void *row, const struct sc_ctx *x,
		const char *const *sel)
{
	const struct sc_col *c;
	const char *shown;
	struct sc_val v;
	char b[40];
	int first = 1;

	for (size_t i = 0, n = sc_sel_count(t, sel); i < n; i++) {
		if ((c = sc_sel_col(t, sel, i, &shown)) == NULL)
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		sc_get(c, row, x, &v);
		if (v.null)
			continue;
		switch (c->type) {
		case SC_TEXT:
			out_csv_field(f, v.s);
			break;
		case SC_INT:
			fprintf(f, "%" PRId64, v.i);
			break;
		case SC_BOOL:
			fputs(v.i ? "true" : "false", f);
			break;
		default:
			/* NaN and infinities: an empty field */
			if (v.d == v.d) {
				jsonw_fmt_double(b, sizeof(b), v.d);
				if (strcmp(b, "null") != 0)
					fputs(b, f);
			}
			break;
		}
	}
	fputc('\n', f);
}
