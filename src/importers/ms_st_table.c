/*
 * ms_st_table.c - step_trace_raw_<dev>_detail_time.csv as a table of
 * numbers (ms_st_table.h).
 */
#include "importers/ms_st_table.h"
#include "importers/ms_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ms_st_table_release(struct ms_st_table *t)
{
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i]);
	free(t->cols);
	free(t->cells);
	free(t->step);
	memset(t, 0, sizeof(*t));
}

static int fail(struct ms_st_table *t, struct nns_err *err, int rc, const char *name, size_t line,
		const char *what)
{
	ms_st_table_release(t);
	return nns_err_set(err, rc, "%s:%zu: %s", name, line, what);
}

/* Grows cells and step to hold rows + 1 rows. */
static int grow(struct ms_st_table *t, size_t *cap)
{
	size_t nc = *cap ? *cap * 2 : 64;
	double *c;
	char(*s)[16];

	if (t->nrows < *cap)
		return 0;
	c = realloc(t->cells, nc * t->ncols * sizeof(*c));
	if (!c)
		return -1;
	t->cells = c;
	s = realloc(t->step, nc * sizeof(*s));
	if (!s)
		return -1;
	t->step = s;
	*cap = nc;
	return 0;
}

int ms_st_table_parse(struct ms_st_table *t, const char *buf, size_t n, const char *name,
		      struct nns_err *err)
{
	struct ms_csv c;
	size_t line = 1, cap = 0;
	int eol = 1, k;

	memset(t, 0, sizeof(*t));
	ms_csv_init(&c, buf, n);
	/* header */
	do {
		char **v;

		if ((k = ms_csv_field(&c, &eol)) != 0) {
			ms_csv_release(&c);
			return fail(t, err, NNS_EFORMAT, name, 1,
				    k == -1 ? "empty file" : "bad header");
		}
		if (t->ncols >= MS_ST_MAX_COLS) {
			ms_csv_release(&c);
			return fail(t, err, NNS_EFORMAT, name, 1, "more than 4096 columns");
		}
		v = realloc(t->cols, (t->ncols + 1) * sizeof(*v));
		if (!v || !(v[t->ncols] = strdup(ms_csv_str(&c)))) {
			if (v)
				t->cols = v;
			ms_csv_release(&c);
			return fail(t, err, NNS_ENOMEM, name, 1, "out of memory");
		}
		t->cols = v;
		t->ncols++;
	} while (!eol);
	if (t->ncols < 9 || strcmp(t->cols[0], "step_num") != 0) {
		ms_csv_release(&c);
		return fail(t, err, NNS_EFORMAT, name, 1,
			    "not a step trace header (step_num,start_point,...,tail)");
	}
	while (c.p < c.end) {
		size_t col = 0;
		double *row;

		line++;
		if (*c.p == '\n' || *c.p == '\r') {
			ms_csv_skip_line(&c);
			continue;
		}
		if (t->nrows >= MS_ST_MAX_ROWS) {
			ms_csv_release(&c);
			return fail(t, err, NNS_EFORMAT, name, line, "more than 1000000 rows");
		}
		if (grow(t, &cap)) {
			ms_csv_release(&c);
			return fail(t, err, NNS_ENOMEM, name, line, "out of memory");
		}
		row = t->cells + t->nrows * t->ncols;
		for (size_t i = 0; i < t->ncols; i++)
			row[i] = NAN;
		do {
			k = ms_csv_field(&c, &eol);
			if (k == -1)
				break;
			if (k == -2) {
				ms_csv_release(&c);
				return fail(t, err, NNS_EFORMAT, name, line, "bad field");
			}
			if (col == 0)
				snprintf(t->step[t->nrows], sizeof(t->step[0]), "%s",
					 ms_csv_str(&c));
			else if (col < t->ncols && ms_csv_num(ms_csv_str(&c), &row[col]))
				row[col] = NAN;
			col++;
		} while (!eol);
		if (col != t->ncols) {
			char what[96];

			snprintf(what, sizeof(what), "%zu fields where the header has %zu", col,
				 t->ncols);
			ms_csv_release(&c);
			return fail(t, err, NNS_EFORMAT, name, line, what);
		}
		t->nrows++;
	}
	ms_csv_release(&c);
	if (t->nrows == 0)
		return fail(t, err, NNS_EFORMAT, name, line, "no data rows");
	return NNS_OK;
}

int ms_st_table_load(struct ms_st_table *t, const struct ms_src *s, struct nns_err *err)
{
	char path[4096], *buf;
	size_t n;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = ms_src_read(s, "step_trace_raw_", "_detail_time.csv", (size_t)1 << 30, &buf, &n,
			      err)))
		return rc;
	if (ms_src_path(s, "step_trace_raw_", "_detail_time.csv", path, sizeof(path)))
		snprintf(path, sizeof(path), "step_trace_raw_%d_detail_time.csv", s->dev);
	rc = ms_st_table_parse(t, buf, n, path, err);
	free(buf);
	return rc;
}

int ms_st_col(const struct ms_st_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i], name) == 0)
			return (int)i;
	return -1;
}

double ms_st_cell(const struct ms_st_table *t, size_t row, const char *name)
{
	int c = ms_st_col(t, name);

	if (c < 0 || row >= t->nrows)
		return NAN;
	return t->cells[row * t->ncols + (size_t)c];
}
