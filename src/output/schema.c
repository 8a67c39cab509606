/*
 * schema.c - reading a described column out of a row, and resolving the
 * column selections the writers take (schema.h).
 */
#include "output/schema.h"

#include <string.h>

const struct sc_col *sc_col_find(const struct sc_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].name, name) == 0)
			return &t->cols[i];
	return NULL;
}

const struct sc_col *sc_pick(const struct sc_table *t, const char *entry, const char **shown)
{
	const char *colon = strchr(entry, ':');
	size_t n = colon ? (size_t)(colon - entry) : strlen(entry);

	for (size_t i = 0; i < t->ncols; i++)
		if (strncmp(t->cols[i].name, entry, n) == 0 && t->cols[i].name[n] == '\0') {
			if (shown)
				*shown = colon ? colon + 1 : t->cols[i].name;
			return &t->cols[i];
		}
	return NULL;
}

void sc_picks(struct sc_picks *ps, const struct sc_table *t, const char *const *sel)
{
	ps->n = 0;
	if (!sel) {
		for (size_t i = 0; i < t->ncols && ps->n < SC_MAX_PICKS; i++) {
			ps->col[ps->n] = &t->cols[i];
			ps->shown[ps->n++] = t->cols[i].name;
		}
		return;
	}
	for (size_t i = 0; sel[i] && ps->n < SC_MAX_PICKS; i++) {
		const char *shown;
		const struct sc_col *c = sc_pick(t, sel[i], &shown);

		if (c) {
			ps->col[ps->n] = c;
			ps->shown[ps->n++] = shown;
		}
	}
}

void sc_get(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	const char *base = (const char *)row + c->off;
	int64_t i64;
	double d;
	uint32_t id;

	v->null = 0;
	v->i = 0;
	v->d = 0.0;
	v->ns = 0.0;
	v->s = NULL;
	v->undefined = 0;
	v->omit = 0;
	switch (c->src) {
	case SC_F_I64:
		memcpy(&i64, base, sizeof(i64));
		v->i = i64;
		v->d = (double)i64;
		break;
	case SC_F_I32: {
		int32_t i32;

		memcpy(&i32, base, sizeof(i32));
		v->i = i32;
		v->d = (double)i32;
		break;
	}
	case SC_F_NS:
		memcpy(&i64, base, sizeof(i64));
		v->ns = (double)i64;
		v->d = (double)i64 / 1000.0;
		v->i = i64;
		break;
	case SC_F_DNS:
		memcpy(&d, base, sizeof(d));
		v->ns = d;
		v->d = d / 1000.0;
		break;
	case SC_F_DBL:
		memcpy(&d, base, sizeof(d));
		v->d = d;
		break;
	case SC_F_STRID:
		memcpy(&id, base, sizeof(id));
		v->s = x && x->m && id != STRPOOL_NONE ? model_str(x->m, id) : "";
		if (!v->s)
			v->s = "";
		break;
	case SC_F_CHARS:
		v->s = base;
		break;
	case SC_F_PSTR:
		memcpy(&v->s, base, sizeof(v->s));
		break;
	case SC_F_FLT: {
		float f;

		memcpy(&f, base, sizeof(f));
		v->d = f;
		break;
	}
	default:
		c->fn(c, row, x, v);
		return;
	}
	/* a µs column kept as µs in its row (not ns) */
	if (c->unit == SC_US && c->src != SC_F_NS && c->src != SC_F_DNS)
		v->ns = v->d * 1000.0;
}
