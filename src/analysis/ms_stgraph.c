/*
 * ms_stgraph.c - MindInsight's training-trace graph of one step (the
 * definitions are in ms_steptrace.h).
 */
#include "analysis/ms_steptrace.h"
#include "importers/ms_st_table.h"
#include "common/vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ms4(double counts)
{
	return round(counts * 1e-5 * 1e4) / 1e4;
}

static double r4(double v)
{
	return round(v * 1e4) / 1e4;
}

struct gb {
	struct ms_st_graph *g;
	size_t cap, lcap;
};

static int point(struct gb *b, const char *name, double start, double dur)
{
	struct ms_st_point *p;

	if (vec_reserve_raw((void **)&b->g->pts, &b->cap, b->g->npts + 1, sizeof(*b->g->pts)))
		return -1;
	p = &b->g->pts[b->g->npts++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->valid = start >= 0 && dur >= 0;
	p->start_ms = p->valid ? r4(start) : 0;
	p->dur_ms = p->valid ? r4(dur) : 0;
	return 0;
}

static int end_line(struct gb *b)
{
	if (vec_reserve_raw((void **)&b->g->line_end, &b->lcap, b->g->nlines + 1,
			    sizeof(*b->g->line_end)))
		return -1;
	b->g->line_end[b->g->nlines++] = b->g->npts;
	return 0;
}

/* A cell in ms, 0 when absent (MindInsight's row_info_dict.get(key, 0)). */
static double cell_ms(const struct ms_st_table *t, size_t row, const char *name)
{
	double v = ms_st_cell(t, row, name);

	return isnan(v) ? 0 : ms4(v);
}

struct reduce {
	double start, end, dur;
	int col;    /* column of the duration field (its name) */
	long group; /* order of the stream id's first appearance */
};

static int reduce_cmp(const void *x, const void *y)
{
	const struct reduce *a = x, *b = y;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->col - b->col; /* stable: column order */
}

/* The stream id of a field stream_<id>_...: its text up to the next '_'. */
static size_t stream_id(const char *field, const char **id)
{
	const char *s = field + 7, *u = strchr(s, '_');

	*id = s;
	return u ? (size_t)(u - s) : strlen(s);
}

static int reduce_lines(struct gb *b, const struct ms_st_table *t, size_t row)
{
	struct reduce *rv = malloc((t->ncols + 1) * sizeof(*rv));
	double start = cell_ms(t, row, "start_point"), end = cell_ms(t, row, "end_point");
	double fp = cell_ms(t, row, "fp_point");
	size_t n = 0;
	long groups = 0;
	int rc = 0;

	if (!rv)
		return -1;
	for (size_t c = 1; c < t->ncols; c++) {
		const char *f = t->cols[c], *id;
		size_t flen = strlen(f), idn;
		char key[512];
		struct reduce r;

		if (strncmp(f, "stream_", 7) != 0 ||
		    (flen >= 5 && strcmp(f + flen - 5, "point") == 0))
			continue;
		snprintf(key, sizeof(key), "%s_start_point", f);
		r.start = cell_ms(t, row, key);
		snprintf(key, sizeof(key), "%s_end_point", f);
		r.end = cell_ms(t, row, key);
		r.dur = cell_ms(t, row, f);
		r.col = (int)c;
		if (!(r.start != 0 && r.end != 0 && r.dur != 0))
			continue;
		idn = stream_id(f, &id);
		r.group = -1;
		for (size_t k = 0; k < n && r.group < 0; k++) {
			const char *oid;
			size_t on = stream_id(t->cols[rv[k].col], &oid);

			if (on == idn && strncmp(oid, id, idn) == 0)
				r.group = rv[k].group;
		}
		if (r.group < 0)
			r.group = groups++;
		rv[n++] = r;
	}
	qsort(rv, n, sizeof(*rv), reduce_cmp);
	for (size_t i = 0; i < n && !rc;) {
		double prev = fp;
		size_t j = i;

		for (; j < n && rv[j].group == rv[i].group && !rc; j++) {
			rc = point(b, "", prev - start, rv[j].start - prev) ||
			     point(b, t->cols[rv[j].col], rv[j].start - start, rv[j].dur);
			prev = rv[j].end;
		}
		if (!rc)
			rc = point(b, "", prev - start, end - prev) || end_line(b);
		i = j;
	}
	free(rv);
	return rc;
}

int ms_st_graph_build(const struct ms_st_table *t, size_t step_id, struct ms_st_graph *g,
		      struct nns_err *err)
{
	struct gb b;
	size_t size = t->nrows ? t->nrows - 1 : 0, row;
	double start;

	memset(g, 0, sizeof(*g));
	b.g = g;
	b.cap = b.lcap = 0;
	if (t->nrows == 0 || step_id > size)
		return nns_err_set(err, NNS_EINVAL, "The step num must be in [0, %zu]", size);
	row = step_id == 0 ? t->nrows - 1 : step_id - 1;
	start = cell_ms(t, row, "start_point");
	if (point(&b, "", 0, cell_ms(t, row, "total")) || end_line(&b) ||
	    point(&b, "iteration_interval", 0, cell_ms(t, row, "iteration_interval")) ||
	    point(&b, "fp_and_bp", cell_ms(t, row, "fp_point") - start,
		  cell_ms(t, row, "fp_and_bp")) ||
	    point(&b, "tail", cell_ms(t, row, "bp_point") - start, cell_ms(t, row, "tail")) ||
	    end_line(&b) || reduce_lines(&b, t, row)) {
		ms_st_graph_release(g);
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	}
	return NNS_OK;
}

void ms_st_graph_release(struct ms_st_graph *g)
{
	free(g->pts);
	free(g->line_end);
	memset(g, 0, sizeof(*g));
}
