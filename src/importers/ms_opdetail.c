/*
 * ms_opdetail.c - framework_raw_<dev>.csv op_info reader and the join of
 * op_info and FLOPs onto the by-op rows (ms_opdetail.h).
 */
#include "importers/ms_opdetail.h"
#include "importers/ms_csv.h"
#include "importers/ms_json.h"
#include "importers/ms_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FW_COLS_MAX 64

static int add_str(struct ms_fw *fw, const char *s, size_t *off)
{
	return ms_strs_add(&fw->s, s, strlen(s), off);
}

void ms_fw_release(struct ms_fw *fw)
{
	vec_free(&fw->ops);
	vec_free(&fw->by_name);
	vec_free(&fw->t);
	vec_free(&fw->dims);
	vec_free(&fw->s);
	fw->has = 0;
}

/* "32,3,224,224" / "" -> dims; -1 when not a list of integers. */
static int dims_from_string(struct ms_fw *fw, const char *s, uint32_t *nd)
{
	*nd = 0;
	while (*s == ' ')
		s++;
	if (!*s)
		return 0;
	for (;;) {
		char *e;
		long long v;

		errno = 0;
		v = strtoll(s, &e, 10);
		if (e == s || errno || *nd >= MS_FW_MAX_DIMS)
			return -1;
		if (vec_push(&fw->dims, (int64_t)v))
			return -2;
		(*nd)++;
		while (*e == ' ')
			e++;
		if (!*e)
			return 0;
		if (*e != ',')
			return -1;
		s = e + 1;
	}
}

/* Parses one op_info JSON text into tensors of fw. 0, -1 (format, *why
 * set), -2 (memory). */
static int parse_opinfo(struct ms_fw *fw, struct ms_opinfo *op, const char *txt, const char *where,
			struct nns_err *err)
{
	struct msj j;
	const struct msj_node *root, *x;
	int rc = msj_parse(&j, txt, strlen(txt), where, err);

	if (rc)
		return rc;
	root = msj_root(&j);
	if (root->type != MSJ_OBJ) {
		msj_release(&j);
		return nns_err_set(err, NNS_EFORMAT, "%s: op_info is not a JSON object", where);
	}
	op->t0 = (uint32_t)fw->t.n;
	for (x = msj_first(&j, root); x; x = msj_next(&j, x)) {
		struct ms_tensor t;
		const struct msj_node *sh = msj_get(&j, x, "shape");
		const char *fmt = msj_str(&j, msj_get(&j, x, "format"));
		const char *dt = msj_str(&j, msj_get(&j, x, "data_type"));

		if (x->type != MSJ_OBJ) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s: an op_info entry is not an object",
					 where);
			goto out;
		}
		if (op->nt >= MS_FW_MAX_TENSORS || fw->t.n >= UINT32_MAX - 1) {
			rc = nns_err_set(err, NNS_EFORMAT, "%s: op_info has too many tensors",
					 where);
			goto out;
		}
		memset(&t, 0, sizeof(t));
		t.dim0 = fw->dims.n;
		if (add_str(fw, msj_key(&j, x), &t.key) || add_str(fw, fmt ? fmt : "", &t.format) ||
		    add_str(fw, dt ? dt : "", &t.dtype))
			goto nomem;
		if (!sh || sh->type == MSJ_NULL) {
			t.shape_null = 1;
		} else if (sh->type == MSJ_STR) {
			int k = dims_from_string(fw, msj_str(&j, sh), &t.ndim);

			if (k == -2)
				goto nomem;
			if (k) {
				rc = nns_err_set(err, NNS_EFORMAT,
						 "%s: an op_info shape is not a list of integers",
						 where);
				goto out;
			}
		} else if (sh->type == MSJ_ARR) {
			const struct msj_node *d;

			for (d = msj_first(&j, sh); d; d = msj_next(&j, d)) {
				if (d->type != MSJ_NUM || d->num != floor(d->num) ||
				    t.ndim >= MS_FW_MAX_DIMS) {
					rc = nns_err_set(
					    err, NNS_EFORMAT,
					    "%s: an op_info shape is not a list of integers",
					    where);
					goto out;
				}
				if (vec_push(&fw->dims, (int64_t)d->num))
					goto nomem;
				t.ndim++;
			}
		} else {
			rc = nns_err_set(err, NNS_EFORMAT,
					 "%s: an op_info shape is not a list or a string", where);
			goto out;
		}
		if (vec_push(&fw->t, t))
			goto nomem;
		op->nt++;
	}
	op->has = 1;
out:
	msj_release(&j);
	return rc;
nomem:
	msj_release(&j);
	return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", where);
}

static int cmp_fw(const struct ms_fw *fw, uint32_t x, uint32_t y)
{
	int c = strcmp(ms_fw_str(fw, fw->ops.v[x].name), ms_fw_str(fw, fw->ops.v[y].name));

	return c ? c : (x > y) - (x < y);
}

/* qsort has no context argument in C11: a merge sort of row indices by name. */
static void sort_idx(const struct ms_fw *fw, uint32_t *v, uint32_t *tmp, size_t n)
{
	size_t m = n / 2, i = 0, j = m, k = 0;

	if (n < 2)
		return;
	sort_idx(fw, v, tmp, m);
	sort_idx(fw, v + m, tmp, n - m);
	while (i < m || j < n)
		tmp[k++] = (j >= n || (i < m && cmp_fw(fw, v[i], v[j]) <= 0)) ? v[i++] : v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/* The columns of framework_raw the reader uses: the full name and op_info. */
struct fw_cols {
	int key, info;
};

/* Reads the fields of one line: line 1 is the header (its columns into
 * *fc), another line a row (its name and op_info into *op). *ncol receives
 * the number of fields and *have_key whether the name was there. */
static int fw_line(struct ms_fw *fw, struct ms_csv *c, size_t line, struct fw_cols *fc,
		   struct ms_opinfo *op, int *ncol, int *have_key, const char *name,
		   struct nns_err *err)
{
	char where[600];
	int eol = 0, col = 0, k, rc;

	*have_key = 0;
	while (!eol) {
		k = ms_csv_field(c, &eol);
		if (k == -1)
			break;
		if (k == -2)
			return nns_err_set(err, NNS_EFORMAT, "%s:%zu: bad quoting or a huge field",
					   name, line);
		if (line == 1) {
			const char *h = ms_csv_str(c);

			if (!strcmp(h, "full_kernel_name") || !strcmp(h, "full_op_name"))
				fc->key = col;
			else if (!strcmp(h, "op_info"))
				fc->info = col;
		} else if (col == fc->key) {
			if (add_str(fw, ms_csv_str(c), &op->name))
				return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
			*have_key = 1;
		} else if (col == fc->info && ms_csv_str(c)[0]) {
			snprintf(where, sizeof(where), "%s:%zu", name, line);
			if (!*have_key)
				return nns_err_set(err, NNS_EFORMAT,
						   "%s: op_info before the name column", where);
			if ((rc = parse_opinfo(fw, op, ms_csv_str(c), where, err)))
				return rc;
		}
		col++;
	}
	*ncol = col;
	return NNS_OK;
}

/* Adds the row op of line (col fields) unless it is blank. */
static int fw_add(struct ms_fw *fw, const struct ms_opinfo *op, size_t line, int col, int have_key,
		  const struct fw_cols *fc, const char *name, struct nns_err *err)
{
	if (col == 1 && !have_key)
		return NNS_OK; /* blank line */
	if (!have_key || col <= fc->info)
		return nns_err_set(err, NNS_EFORMAT, "%s:%zu: %d fields, need at least %d", name,
				   line, col, (fc->key > fc->info ? fc->key : fc->info) + 1);
	if (fw->ops.n >= MS_FW_MAX_ROWS)
		return nns_err_set(err, NNS_EFORMAT, "%s: more than %d rows", name, MS_FW_MAX_ROWS);
	if (vec_push(&fw->ops, *op))
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
	return NNS_OK;
}

/* fw->by_name: the ops sorted by name, for ms_fw_find. */
static int fw_index(struct ms_fw *fw, const char *name, struct nns_err *err)
{
	uint32_t *tmp;

	if (vec_reserve(&fw->by_name, fw->ops.n + 1))
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
	for (size_t i = 0; i < fw->ops.n; i++)
		fw->by_name.v[i] = (uint32_t)i;
	fw->by_name.n = fw->ops.n;
	if (!(tmp = malloc((fw->ops.n + 1) * sizeof(*tmp))))
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
	sort_idx(fw, fw->by_name.v, tmp, fw->by_name.n);
	free(tmp);
	return NNS_OK;
}

int ms_fw_parse(struct ms_fw *fw, const char *buf, size_t n, const char *name, struct nns_err *err)
{
	struct fw_cols fc = {3, -1};
	struct ms_csv c;
	size_t line = 0;
	int rc = NNS_OK;

	memset(fw, 0, sizeof(*fw));
	if (!name)
		name = "framework_raw";
	ms_csv_init(&c, buf, n);
	while (c.p < c.end) {
		struct ms_opinfo op;
		int col = 0, have_key = 0;

		line++;
		memset(&op, 0, sizeof(op));
		op.line = line;
		if ((rc = fw_line(fw, &c, line, &fc, &op, &col, &have_key, name, err)))
			goto out;
		if (line == 1) {
			if (col < 4 || fc.info < 0) {
				rc = nns_err_set(
				    err, NNS_EFORMAT,
				    "%s:1: not a framework_raw header (no op_info column)", name);
				goto out;
			}
			continue;
		}
		if ((rc = fw_add(fw, &op, line, col, have_key, &fc, name, err)))
			goto out;
	}
	if (line == 0) {
		rc = nns_err_set(err, NNS_EFORMAT, "%s:1: empty file", name);
		goto out;
	}
	if ((rc = fw_index(fw, name, err)))
		goto out;
	fw->has = 1;
out:
	ms_csv_release(&c);
	if (rc)
		ms_fw_release(fw);
	return rc;
}

const struct ms_opinfo *ms_fw_find(const struct ms_fw *fw, const char *full_name)
{
	size_t lo = 0, hi = fw->by_name.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ms_fw_str(fw, fw->ops.v[fw->by_name.v[mid]].name), full_name) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo is past the last equal name: the last row in file order wins */
	if (lo > 0 && !strcmp(ms_fw_str(fw, fw->ops.v[fw->by_name.v[lo - 1]].name), full_name))
		return &fw->ops.v[fw->by_name.v[lo - 1]];
	return NULL;
}

int ms_opd_join(struct ms_opd *d, const struct ms_ad *ad, const struct ms_flops *fl,
		const struct ms_fw *fw, struct nns_err *err)
{
	size_t i;

	d->rows.n = 0;
	if (vec_reserve(&d->rows, ad->rows.n + 1))
		return nns_err_set(err, NNS_ENOMEM, "op detail: out of memory");
	for (i = 0; i < ad->rows.n; i++) {
		struct ms_opd_row r;
		const struct ms_flops_op *f = fl ? ms_flops_find(fl, ad->rows.v[i].op_name) : NULL;
		const struct ms_opinfo *o = fw ? ms_fw_find(fw, ad->rows.v[i].op_name) : NULL;

		r.ad = i;
		r.mflops_cube = r.gflops_cube = r.mflops_vec = r.gflops_vec = NAN;
		if (f) {
			r.mflops_cube = !isnan(f->mflops_cube) ? f->mflops_cube : f->mflops;
			r.gflops_cube = !isnan(f->gflops_cube) ? f->gflops_cube : f->gflops;
			r.mflops_vec = f->mflops_vec;
			r.gflops_vec = f->gflops_vec;
		}
		r.info = o ? (int64_t)(o - fw->ops.v) : -1;
		d->rows.v[d->rows.n++] = r;
	}
	return NNS_OK;
}

void ms_opd_release(struct ms_opd *d)
{
	ms_ad_release(&d->ad);
	ms_flops_release(&d->fl);
	ms_fw_release(&d->fw);
	vec_free(&d->rows);
	d->has = 0;
}

int ms_opd_load(struct ms_opd *d, const struct ms_src *s, struct nns_err *err)
{
	char path[4096];
	char *buf = NULL;
	size_t n;
	int rc;

	memset(d, 0, sizeof(*d));
	ms_flops_init(&d->fl);
	rc = ms_read(s, "aicore_intermediate_", "_detail.csv", path, sizeof(path), &buf, &n, err);
	if (rc || !buf)
		return rc;
	rc = ms_ad_parse(&d->ad, buf, n, err);
	free(buf);
	if (rc) {
		char msg[NNS_ERR_MSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		nns_err_set(err, rc, "%s: %s", path, msg);
		goto out;
	}
	rc = ms_read(s, "framework_raw_", ".csv", path, sizeof(path), &buf, &n, err);
	if (rc)
		goto out;
	if (buf) {
		rc = ms_fw_parse(&d->fw, buf, n, path, err);
		free(buf);
		if (rc)
			goto out;
	}
	rc = ms_read(s, "flops_", ".txt", path, sizeof(path), &buf, &n, err);
	if (rc)
		goto out;
	if (buf) {
		rc = ms_flops_parse_ops(&d->fl, buf, n, path, err);
		free(buf);
		if (rc)
			goto out;
	}
	rc = ms_opd_join(d, &d->ad, &d->fl, d->fw.has ? &d->fw : NULL, err);
	if (!rc)
		d->has = 1;
out:
	if (rc)
		ms_opd_release(d);
	return rc;
}
