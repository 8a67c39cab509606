/*
 * ms_optab.c - MindSpore's GPU-mode and host CPU operator tables by
 * position, as MindInsight's analysers read them (definitions in
 * ms_optab.h).
 */
#include "importers/ms_optab.h"
#include "importers/ms_csv.h"
#include "importers/ms_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct ms_ot_col GPU_TYPE[] = {
    {"op_type", 0, MS_OT_STR},
    {"total_time_us", 2, MS_OT_F},
    {"execution_frequency", 1, MS_OT_INT},
    {"total_percent", 3, MS_OT_F100},
    {"avg_time_us", 4, MS_OT_F},
};
static const struct ms_ot_col GPU_DETAIL[] = {
    {"op_side", 0, MS_OT_STR},
    {"op_type", 1, MS_OT_STR},
    {"op_name", 2, MS_OT_STR},
    {"op_full_name", 3, MS_OT_STR},
    {"op_occurrences", 4, MS_OT_INT},
    {"op_total_time_us", 5, MS_OT_F},
    {"op_avg_time_us", 6, MS_OT_F},
    {"proportion", 7, MS_OT_F},
    {"cuda_activity_cost_time_us", 8, MS_OT_F},
    {"cuda_activity_call_count", 9, MS_OT_INT},
};
static const struct ms_ot_col GPU_ACTIVITY[] = {
    {"name", 0, MS_OT_STR},	      {"type", 1, MS_OT_STR},
    {"op_full_name", 2, MS_OT_STR},   {"stream_id", 3, MS_OT_STR},
    {"block_dim", 4, MS_OT_STR},      {"grid_dim", 5, MS_OT_STR},
    {"occurrences", 6, MS_OT_INT},    {"total_duration_us", 7, MS_OT_F},
    {"avg_duration_us", 8, MS_OT_F},  {"max_duration_us", 9, MS_OT_F},
    {"min_duration_us", 10, MS_OT_F},
};
static const struct ms_ot_col CPU_TYPE[] = {
    {"op_type", 0, MS_OT_STR},
    {"type_occurrences", 1, MS_OT_INT},
    {"execution_frequency", 2, MS_OT_INT},
    {"total_compute_time_us", 3, MS_OT_FUS},
    {"avg_time_us", 4, MS_OT_FUS},
    {"total_time_proportion", 5, MS_OT_F100},
};
static const struct ms_ot_col CPU_DETAIL[] = {
    {"op_side", 0, MS_OT_STR},	      {"op_type", 1, MS_OT_STR},
    {"op_name", 2, MS_OT_STR},	      {"full_op_name", 3, MS_OT_STR},
    {"op_occurrences", 4, MS_OT_INT}, {"op_total_time_us", 5, MS_OT_FUS},
    {"op_avg_time_us", 6, MS_OT_FUS}, {"total_proportion", 7, MS_OT_F},
    {"subgraph", 8, MS_OT_STR},
};

#define NCOL(a) ((int)(sizeof(a) / sizeof((a)[0])))

const struct ms_ot_spec ms_ot_specs[MS_OT_N] = {
    {"gpu_op_type", "gpu_op_type_info_", ".csv", NCOL(GPU_TYPE), 1, GPU_TYPE},
    {"gpu_op_detail", "gpu_op_detail_info_", ".csv", NCOL(GPU_DETAIL), 5, GPU_DETAIL},
    {"gpu_activity", "gpu_activity_data_", ".csv", NCOL(GPU_ACTIVITY), 7, GPU_ACTIVITY},
    {"cpu_op_type", "cpu_op_type_info_", ".csv", NCOL(CPU_TYPE), 3, CPU_TYPE},
    {"cpu_op_detail", "cpu_op_detail_info_", ".csv", NCOL(CPU_DETAIL), 5, CPU_DETAIL},
};

double ms_ot_format(double x)
{
	if (x < 1)
		return round(x * 1e6) / 1e6;
	return round(x * 1e3) / 1e3;
}

void ms_optab_release(struct ms_optab *t)
{
	free(t->num);
	free(t->off);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

/* Room for one more row; 0 or NNS_ENOMEM. */
static int grow(struct ms_optab *t, size_t *cap)
{
	size_t nc = (size_t)t->spec->ncols, ncap;
	double *num;
	size_t *off;

	if (t->rows < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	num = realloc(t->num, ncap * nc * sizeof(*num));
	if (!num)
		return NNS_ENOMEM;
	t->num = num;
	off = realloc(t->off, ncap * nc * sizeof(*off));
	if (!off)
		return NNS_ENOMEM;
	t->off = off;
	*cap = ncap;
	return 0;
}

/* One data row (k fields at f) into row t->rows; 0, or -1 with why set. */
static int put_row(struct ms_optab *t, char (*f)[MS_OT_FIELD_MAX], int k, const char **why)
{
	const struct ms_ot_spec *sp = t->spec;
	size_t base = t->rows * (size_t)sp->ncols;

	for (int c = 0; c < sp->ncols; c++) {
		const struct ms_ot_col *col = &sp->cols[c];
		double v;

		if (col->src >= k) {
			*why = "too few fields";
			return -1;
		}
		t->off[base + c] = 0;
		t->num[base + c] = 0;
		if (col->conv == MS_OT_STR) {
			size_t off;

			if (ms_strs_add_raw(&t->text, &t->text_len, &t->text_cap, f[col->src],
					    strlen(f[col->src]), &off)) {
				*why = "out of memory";
				return -1;
			}
			t->off[base + c] = off;
			continue;
		}
		if (ms_csv_num(f[col->src], &v)) {
			*why = "not a number";
			return -1;
		}
		switch (col->conv) {
		case MS_OT_INT:
			if (v != floor(v) || fabs(v) > 9007199254740992.0) {
				*why = "not a whole number";
				return -1;
			}
			break;
		case MS_OT_F100:
			v = ms_ot_format(v * 100);
			break;
		case MS_OT_FUS:
			v = ms_ot_format(v * 1000);
			break;
		default:
			v = ms_ot_format(v);
		}
		t->num[base + c] = v;
	}
	t->rows++;
	return 0;
}

int ms_optab_parse(struct ms_optab *t, enum ms_ot_kind kind, const char *buf, size_t n,
		   const char *name, struct nns_err *err)
{
	char(*f)[MS_OT_FIELD_MAX];
	struct ms_csv c;
	size_t line = 0, cap = 0;
	int rc = NNS_OK, k;

	memset(t, 0, sizeof(*t));
	t->spec = &ms_ot_specs[kind];
	f = malloc((size_t)MS_OT_MAX_COLS * MS_OT_FIELD_MAX);
	if (!f)
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
	/* an empty string table keeps offsets valid for "" */
	if (ms_strs_add_raw(&t->text, &t->text_len, &t->text_cap, "", 0, &(size_t){0})) {
		free(f);
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
	}
	ms_csv_init(&c, buf, n);
	while ((k = ms_csv_row(&c, &f[0][0], MS_OT_MAX_COLS, MS_OT_FIELD_MAX)) != 0) {
		const char *why = NULL;

		line++;
		if (line == 1)
			continue; /* the header, whatever it says (upstream next()) */
		if (k == 1 && f[0][0] == 0)
			continue; /* blank line */
		if (k < 0) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s:%zu: field longer than %d bytes",
					 name, line, MS_OT_FIELD_MAX - 1);
			goto out;
		}
		if (k > MS_OT_MAX_COLS)
			k = MS_OT_MAX_COLS; /* later columns are not read */
		if (t->rows >= MS_OT_MAX_ROWS) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s: more than %d rows", name,
					 MS_OT_MAX_ROWS);
			goto out;
		}
		if (grow(t, &cap)) {
			rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
			goto out;
		}
		if (put_row(t, f, k, &why)) {
			rc = nns_err_set(err,
					 strcmp(why, "out of memory") ? NNS_EFORMAT : NNS_ENOMEM,
					 "%s:%zu: %s (%s reads %d columns)", name, line, why,
					 t->spec->name, t->spec->cols[t->spec->ncols - 1].src + 1);
			goto out;
		}
	}
	if (line == 0)
		rc = nns_err_set(err, NNS_EFORMAT, "%s: empty file", name);
out:
	ms_csv_release(&c);
	free(f);
	if (rc) {
		const struct ms_ot_spec *sp = t->spec;

		ms_optab_release(t);
		t->spec = sp;
	}
	return rc;
}

int ms_optabs_load(struct ms_optabs *a, const struct ms_src *s)
{
	memset(a, 0, sizeof(*a));
	for (int k = 0; k < MS_OT_N; k++) {
		const struct ms_ot_spec *sp = &ms_ot_specs[k];
		char path[4096];
		char *buf = NULL;
		size_t n = 0;

		a->t[k].spec = sp;
		a->rc[k] = ms_read(s, sp->pre, sp->post, path, sizeof(path), &buf, &n, &a->err[k]);
		if (a->rc[k] == NNS_OK && !buf) {
			a->rc[k] = NNS_ENOTFOUND;
			continue;
		}
		if (a->rc[k] == NNS_OK)
			a->rc[k] =
			    ms_optab_parse(&a->t[k], (enum ms_ot_kind)k, buf, n, path, &a->err[k]);
		free(buf);
		if (a->rc[k] == NNS_ENOMEM)
			return NNS_ENOMEM;
	}
	return NNS_OK;
}

void ms_optabs_release(struct ms_optabs *a)
{
	for (int k = 0; k < MS_OT_N; k++)
		ms_optab_release(&a->t[k]);
}

int ms_optabs_any(const struct ms_optabs *a, int first, int last)
{
	for (int k = first; k <= last && k < MS_OT_N; k++)
		if (a->rc[k] != NNS_ENOTFOUND)
			return 1;
	return 0;
}
