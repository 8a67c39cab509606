/*
 * schema_int.h - what the result-table descriptions (schema_tables.c: the
 * SPEC §4 contract and the distributed view; schema_views.c: the other
 * per-worker views) share: the column macros and small value setters and
 * getters. Internal to src/output/schema_*.c.
 */
#ifndef NNS_OUTPUT_SCHEMA_INT_H
#define NNS_OUTPUT_SCHEMA_INT_H

#include "output/schema.h"

#include <string.h>

#define F(type, field) offsetof(type, field)
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* A column read from a field. */
#define COL(n, ty, un, src, type, field, title, doc)                                               \
	{                                                                                          \
		n, ty, un, src, F(type, field), NULL, title, doc                                   \
	}
/* A column computed by fn from the row's field at its offset. */
#define FCOL(n, ty, un, fn, type, field, title, doc)                                               \
	{                                                                                          \
		n, ty, un, SC_F_FN, F(type, field), fn, title, doc                                 \
	}
/* A computed column. */
#define FNC(n, ty, un, fn, title, doc)                                                             \
	{                                                                                          \
		n, ty, un, SC_F_FN, 0, fn, title, doc                                              \
	}

static inline double ratio(int64_t num, int64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

static inline void set_us(struct sc_val *v, int64_t ns)
{
	v->ns = (double)ns;
	v->d = (double)ns / 1000.0;
}

static inline void set_null(struct sc_val *v)
{
	v->null = 1;
}

/* An optional member that is not there: left out of JSON objects, absent
 * (empty, NULL, "-") elsewhere. */
static inline void set_omit(struct sc_val *v)
{
	v->null = 1;
	v->omit = 1;
}

/* A microsecond value computed as µs (v->ns for the terminal). */
static inline void set_us_d(struct sc_val *v, double us)
{
	v->d = us;
	v->ns = us * 1000.0;
}

/* A uint32_t at c->off as an integer (event ids, counts). */
static inline void sc_u32_at(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			     struct sc_val *v)
{
	uint32_t u;

	(void)x;
	memcpy(&u, (const char *)row + c->off, sizeof(u));
	v->i = u;
	v->d = u;
}

static inline const char *str_or_null(const struct model *m, uint32_t id)
{
	if (!m || id == 0 || id == STRPOOL_NONE)
		return NULL;
	return model_str(m, id);
}

/* the trace start: times "since the trace start" are relative to it */
static inline int64_t t0_of(const struct sc_ctx *x)
{
	return x && x->m ? x->m->min_ts : 0;
}

/* A double at c->off, absent (null) when negative. */
static inline void sc_dbl_or_null(const struct sc_col *c, const void *row, const struct sc_ctx *x,
				  struct sc_val *v)
{
	double d;

	memcpy(&d, (const char *)row + c->off, sizeof(d));
	if (d < 0)
		set_null(v);
	else
		v->d = d;
}

/* A model string id at c->off, null when none. */
static inline void sc_strid_or_null(const struct sc_col *c, const void *row, const struct sc_ctx *x,
				    struct sc_val *v)
{
	uint32_t id;

	memcpy(&id, (const char *)row + c->off, sizeof(id));
	v->s = str_or_null(x ? x->m : NULL, id);
}

#endif
