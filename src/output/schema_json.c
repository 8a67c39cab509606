/*
 * schema_json.c - result rows as JSON objects, from their description
 * (schema.h): integers and booleans as such, SC_US columns as microsecond
 * doubles, absent values as null, optional ones (sc_val.omit) left out.
 */
#include "output/schema.h"

static void put_value(struct jsonw *w, const struct sc_col *c, const struct sc_val *v)
{
	if (v->null) {
		jsonw_null(w);
		return;
	}
	switch (c->type) {
	case SC_TEXT:
		jsonw_str(w, v->s);
		break;
	case SC_INT:
		jsonw_int(w, v->i);
		break;
	case SC_BOOL:
		jsonw_bool(w, v->i != 0);
		break;
	default:
		jsonw_double(w, v->d);
		break;
	}
}

static void fields(struct jsonw *w, const struct sc_picks *ps, const void *row,
		   const struct sc_ctx *x)
{
	struct sc_val v;

	for (size_t i = 0; i < ps->n; i++) {
		sc_get(ps->col[i], row, x, &v);
		if (v.omit)
			continue;
		jsonw_key(w, ps->shown[i]);
		put_value(w, ps->col[i], &v);
	}
}

void sc_json_fields(struct jsonw *w, const struct sc_table *t, const void *row,
		    const struct sc_ctx *x, const char *const *sel)
{
	struct sc_picks ps;

	sc_picks(&ps, t, sel);
	fields(w, &ps, row, x);
}

void sc_json_row(struct jsonw *w, const struct sc_table *t, const void *row, const struct sc_ctx *x,
		 const char *const *sel)
{
	jsonw_obj_begin(w);
	sc_json_fields(w, t, row, x, sel);
	jsonw_obj_end(w);
}

/* the selection is resolved once for all rows */
void sc_json_rows(struct jsonw *w, const char *key, const struct sc_table *t, const void *rows,
		  size_t n, const struct sc_ctx *x, const char *const *sel)
{
	struct sc_ctx rx = x ? *x : (struct sc_ctx){0};
	struct sc_picks ps;

	sc_picks(&ps, t, sel);
	if (key)
		jsonw_key(w, key);
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		rx.index = i;
		jsonw_obj_begin(w);
		fields(w, &ps, sc_row(t, rows, i), &rx);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}
