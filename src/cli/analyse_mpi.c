/*
 * analyse_mpi.c - the --mpi visit loop of `nnscope analyse`
 * (analyse_mpi.h): per span group, each process analyses its workers and
 * sends their cluster rows to process 0, which merges them in worker order
 * (the order a plain analyse adds them) and runs the cluster analysis.
 * A trace that cannot be loaded is reported by the process that tried and
 * counted, as in a plain analyse (cli_visit_run): it fails no process, and
 * process 0 learns the total, so the exit code says only whether anything
 * at all could be analysed.
 *
 * Message per group, process p -> 0 (tag = group):
 *   u64 spans loaded, u64 rows, u64 spans that failed to load, then per row:
 *   u64 worker index, i32 rank_size, i32 clock_aligned, u64 steps,
 *   struct cl_rank (steps emptied), steps x struct cl_step.
 */
#include "cli/analyse_mpi.h"
#include "analysis/cluster.h"
#include "common/strhash.h"
#include "common/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct rd {
	const unsigned char *p;
	size_t n, at;
};

static int get(struct rd *r, void *dst, size_t n)
{
	if (r->n - r->at < n)
		return -1;
	memcpy(dst, r->p + r->at, n);
	r->at += n;
	return 0;
}

/* One worker's row as a plain analyse computes it: a fresh cl_result with
 * only this worker (cl_add_profile without cl_finish). */
static int put_row(struct buf *b, uint64_t w, const struct cli_item *it, struct nns_err *err)
{
	struct cl_result c;
	struct cl_rank row;
	uint64_t ns;
	int32_t rs, ca;
	int rc;

	cl_init(&c);
	rc = cl_add_profile(&c, it->worker->name, &it->p, err);
	if (rc == NNS_OK && c.ranks.n == 1) {
		row = c.ranks.v[0];
		ns = row.steps.n;
		memset(&row.steps, 0, sizeof(row.steps));
		rs = c.rank_size;
		ca = c.clock_aligned;
		if (buf_append(b, &w, sizeof(w)) || buf_append(b, &rs, sizeof(rs)) ||
		    buf_append(b, &ca, sizeof(ca)) || buf_append(b, &ns, sizeof(ns)) ||
		    buf_append(b, &row, sizeof(row)) ||
		    (ns && buf_append(b, c.ranks.v[0].steps.v, ns * sizeof(struct cl_step))))
			rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
	} else if (rc == NNS_OK) {
		rc = nns_err_set(err, NNS_EINVAL, "no cluster row for %s", it->worker->name);
	}
	cl_release(&c);
	return rc;
}

struct row_in {
	uint64_t worker;
	int32_t rank_size, clock_aligned;
	struct cl_rank r; /* owns its steps */
};

static int cmp_row(const void *a, const void *b)
{
	const struct row_in *x = a, *y = b;

	return (x->worker > y->worker) - (x->worker < y->worker);
}

/* Appends the rows of one message to rows; adds its counts of spans
 * loaded and spans that failed to load. */
static int read_rows(const void *msg, size_t n, struct row_in **rows, size_t *nrows, size_t nw,
		     size_t *loaded, size_t *failed, struct nns_err *err)
{
	struct rd r = {msg, n, 0};
	uint64_t spans, cnt, bad;

	if (get(&r, &spans, sizeof(spans)) || get(&r, &cnt, sizeof(cnt)) ||
	    get(&r, &bad, sizeof(bad)) || cnt > nw || spans > nw || bad > nw)
		return nns_err_set(err, NNS_EFORMAT, "damaged MPI message (header)");
	*loaded += spans;
	*failed += bad;
	for (uint64_t i = 0; i < cnt; i++) {
		struct row_in x;
		uint64_t ns;
		struct row_in *nv;

		memset(&x, 0, sizeof(x));
		if (get(&r, &x.worker, sizeof(x.worker)) || get(&r, &x.rank_size, 4) ||
		    get(&r, &x.clock_aligned, 4) || get(&r, &ns, sizeof(ns)) ||
		    get(&r, &x.r, sizeof(x.r)) || x.worker >= nw || ns > CL_MAX_STEPS_PER_RANK ||
		    r.n - r.at < ns * sizeof(struct cl_step))
			return nns_err_set(err, NNS_EFORMAT, "damaged MPI message (row %llu)",
					   (unsigned long long)i);
		memset(&x.r.steps, 0, sizeof(x.r.steps));
		if (ns && vec_reserve(&x.r.steps, ns))
			return nns_err_set(err, NNS_ENOMEM, "out of memory");
		get(&r, x.r.steps.v, ns * sizeof(struct cl_step));
		x.r.steps.n = ns;
		if (!(nv = realloc(*rows, (*nrows + 1) * sizeof(**rows)))) {
			vec_free(&x.r.steps);
			return nns_err_set(err, NNS_ENOMEM, "out of memory");
		}
		*rows = nv;
		(*rows)[(*nrows)++] = x;
	}
	return NNS_OK;
}

static const struct run_span *span_at(const struct run_worker *w, size_t k, const char *only_span)
{
	if (only_span)
		return k == 0 ? run_find_span(w, only_span) : NULL;
	return k < w->spans.n ? &w->spans.v[k] : NULL;
}

/* Process 0: the cluster result of one group from every process's rows. */
static int merge_group(const struct run *r, struct cli_visit *v, size_t k, struct row_in *rows,
		       size_t n)
{
	struct cl_result c;
	struct nns_err err;
	const char *span_name = NULL;
	int rc = CLI_OK;

	qsort(rows, n, sizeof(*rows), cmp_row);
	cl_init(&c);
	snprintf(c.source, sizeof(c.source), "nnscope");
	snprintf(c.mode, sizeof(c.mode), "data-parallel");
	c.clock_aligned = 1;
	for (size_t i = 0; i < n; i++) {
		const struct run_span *s = span_at(&r->workers.v[rows[i].worker], k, v->only_span);

		if (!span_name && s && s->name)
			span_name = s->name;
		/* no rank metadata: numbered by position, as cl_add_profile does */
		if (rows[i].r.rank < 0)
			rows[i].r.rank = -1 - (int)c.ranks.n;
		if (rows[i].rank_size > c.rank_size)
			c.rank_size = rows[i].rank_size;
		c.clock_aligned &= rows[i].clock_aligned != 0;
		if (vec_push(&c.ranks, rows[i].r)) {
			cl_release(&c);
			cli_error(r->dir, "out of memory");
			return CLI_EINPUT;
		}
		memset(&rows[i].r.steps, 0, sizeof(rows[i].r.steps)); /* moved */
	}
	nns_err_clear(&err);
	if (cl_finish(&c, &err)) {
		cli_error(r->dir, err.msg[0] ? err.msg : "cluster analysis failed");
		rc = CLI_EINPUT;
	} else if (v->on_cluster && v->on_cluster(v->ctx, r, span_name, k, &c)) {
		rc = CLI_EINPUT;
	}
	cl_release(&c);
	return rc;
}

struct share_item {
	size_t w;
	uint64_t bytes;
};

static int cmp_share(const void *a, const void *b)
{
	const struct share_item *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1; /* largest first */
	return (x->w > y->w) - (x->w < y->w);
}

static uint64_t file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

/* owner[w] = the process that analyses worker w in group k: largest trace
 * first to the least loaded process (by bytes; ties to the lower process).
 * Every process computes the same from the same files (cli_mpi_agree
 * checked the sizes). -1: not in this group. NNS_OK or NNS_ENOMEM. */
static int assign(const struct run *r, const struct cli_visit *v, int nproc, size_t k, int *owner)
{
	struct share_item *it = calloc(r->workers.n + 1, sizeof(*it));
	uint64_t *load = calloc((size_t)nproc, sizeof(*load));
	size_t n = 0;

	if (!it || !load) {
		free(it);
		free(load);
		return NNS_ENOMEM;
	}
	for (size_t w = 0; w < r->workers.n; w++) {
		const struct run_span *sp = span_at(&r->workers.v[w], k, v->only_span);

		owner[w] = -1;
		if (!sp || (v->only_worker && strcmp(r->workers.v[w].name, v->only_worker) != 0))
			continue;
		it[n].w = w;
		it[n++].bytes = file_bytes(sp->path);
	}
	qsort(it, n, sizeof(*it), cmp_share);
	for (size_t i = 0; i < n; i++) {
		int best = 0;

		for (int p = 1; p < nproc; p++)
			if (load[p] < load[best])
				best = p;
		owner[it[i].w] = best;
		load[best] += it[i].bytes + 1; /* +1: empty files still count */
	}
	free(it);
	free(load);
	return NNS_OK;
}

/* This process's workers of group k: analysed, their rows into b; a
 * trace that cannot be loaded is reported and counted in *failed, and
 * fails nothing else. */
static int visit_share(const struct run *r, struct cli_visit *v, struct mpi_dl *mpi, size_t k,
		       struct buf *b, uint64_t *spans, uint64_t *rows, uint64_t *failed)
{
	int status = CLI_OK, *owner = calloc(r->workers.n + 1, sizeof(*owner));

	if (!owner || assign(r, v, mpi->size, k, owner)) {
		free(owner);
		cli_error(r->dir, "out of memory");
		return CLI_EINPUT;
	}
	for (size_t w = 0; w < r->workers.n; w++) {
		const struct run_worker *wk = &r->workers.v[w];
		const struct run_span *s = span_at(wk, k, v->only_span);
		struct cli_item it;
		struct nns_err err;
		int rc;

		if (owner[w] != mpi->rank || !s)
			continue;
		memset(&it, 0, sizeof(it));
		it.run = r;
		it.worker = wk;
		it.span = s;
		it.passes = v->passes;
		if (cli_load_steps(&it, s->path, &v->kopts, &v->steps)) {
			(*failed)++;
			continue;
		}
		it.p.opts = v->aopts;
		(*spans)++;
		rc = v->on_profile ? v->on_profile(v->ctx, &it) : CLI_OK;
		if (rc)
			status = rc;
		nns_err_clear(&err);
		/* MindSpore devices: their cluster is the MindSpore job's
		 * (ms_cluster.h), as in cli_visit_run */
		if (v->on_cluster && v->want_dist && !v->only_worker && !run_is_mindspore(r)) {
			if (put_row(b, (uint64_t)w, &it, &err)) {
				cli_error(s->path, err.msg);
				status = CLI_EINPUT;
			} else {
				(*rows)++;
			}
		}
		cli_item_release(&it);
	}
	free(owner);
	return status;
}

#define TAG_AGREE 0x7ff0
#define TAG_VERDICT 0x7ff1

/* FNV-1a over the discovered runs: names, workers, span counts. */
static uint64_t fingerprint(const struct run_set *rs)
{
	uint64_t h = STRHASH_INIT;

#define MIX(p, n) h = strhash_add(h, (p), (n))
	for (size_t i = 0; i < rs->runs.n; i++) {
		const struct run *r = &rs->runs.v[i];

		MIX(r->name, strlen(r->name) + 1);
		for (size_t w = 0; w < r->workers.n; w++) {
			uint64_t ns = r->workers.v[w].spans.n;

			MIX(r->workers.v[w].name, strlen(r->workers.v[w].name) + 1);
			MIX(&ns, sizeof(ns));
			for (size_t k = 0; k < ns; k++) { /* sizes decide the split */
				uint64_t b = file_bytes(r->workers.v[w].spans.v[k].path);

				MIX(&b, sizeof(b));
			}
		}
	}
#undef MIX
	return h;
}

int cli_mpi_agree(struct mpi_dl *mpi, int go, const struct run_set *rs)
{
	uint64_t mine[2] = {(uint64_t)(go != 0), go ? fingerprint(rs) : 0};
	struct nns_err err;
	unsigned char verdict; /* 1 go, 0 stop, 2 stop: an error */

	nns_err_clear(&err);
	if (mpi->rank != 0) {
		void *msg = NULL;
		size_t n = 0;

		if (mpi_dl_send(mpi, 0, TAG_AGREE, mine, sizeof(mine), &err) ||
		    mpi_dl_recv(mpi, 0, TAG_VERDICT, &msg, &n, &err)) {
			cli_error(NULL, err.msg);
			return 0;
		}
		verdict = n == 1 ? *(unsigned char *)msg : 2;
		free(msg);
		return verdict == 1 ? 1 : verdict == 0 ? 0 : -1;
	}
	verdict = go ? 1 : 0; /* process 0 has nothing (more) to do: all stop */
	for (int p = 1; p < mpi->size; p++) {
		uint64_t theirs[2];
		void *msg = NULL;
		size_t n = 0;

		if (mpi_dl_recv(mpi, p, TAG_AGREE, &msg, &n, &err) || n != sizeof(theirs)) {
			cli_error(NULL, err.msg[0] ? err.msg : "damaged MPI message (runs)");
			verdict = 2;
		} else {
			memcpy(theirs, msg, sizeof(theirs));
			if (go && theirs[0] && theirs[1] != mine[1]) {
				char m[200];

				snprintf(m, sizeof(m),
					 "--mpi: process %d found other runs than process 0; "
					 "every process must see the same input (a shared file "
					 "system)",
					 p);
				cli_error(NULL, m);
				verdict = 2;
			} else if (go && !theirs[0]) {
				char m[120];

				snprintf(m, sizeof(m), "--mpi: process %d could not read the input",
					 p);
				cli_error(NULL, m);
				verdict = 2;
			}
		}
		free(msg);
	}
	for (int p = 1; p < mpi->size; p++)
		if (mpi_dl_send(mpi, p, TAG_VERDICT, &verdict, 1, &err))
			cli_error(NULL, err.msg);
	return verdict == 1 ? 1 : verdict == 0 ? 0 : -1;
}

int cli_visit_run_mpi(const struct run *r, struct cli_visit *v, struct mpi_dl *mpi, size_t *visited)
{
	size_t groups = 0;
	int status = CLI_OK;

	for (size_t w = 0; w < r->workers.n; w++)
		if (r->workers.v[w].spans.n > groups)
			groups = r->workers.v[w].spans.n;
	if (v->only_span)
		groups = 1;
	for (size_t k = 0; k < groups; k++) {
		struct buf b = {0};
		struct nns_err err;
		uint64_t hdr[3] = {0, 0, 0};
		int tag = (int)(k & 0x7fff);

		nns_err_clear(&err);
		if (buf_append(&b, hdr, sizeof(hdr))) {
			cli_error(r->dir, "out of memory");
			return CLI_EINPUT;
		}
		if (visit_share(r, v, mpi, k, &b, &hdr[0], &hdr[1], &hdr[2]))
			status = CLI_EINPUT;
		memcpy(b.p, hdr, sizeof(hdr));
		if (mpi->rank != 0) {
			if (mpi_dl_send(mpi, 0, tag, b.p, b.len, &err)) {
				cli_error(r->dir, err.msg);
				status = CLI_EINPUT;
			}
		} else {
			struct row_in *rows = NULL;
			size_t nrows = 0, loaded = 0, failed = 0;

			if (read_rows(b.p, b.len, &rows, &nrows, r->workers.n, &loaded, &failed,
				      &err))
				status = CLI_EINPUT;
			for (int p = 1; p < mpi->size; p++) {
				void *msg;
				size_t n;

				/* a failed receive leaves the job hung or aborted by
				 * mpirun; a damaged one only loses that process's rows */
				if (mpi_dl_recv(mpi, p, tag, &msg, &n, &err) ||
				    read_rows(msg, n, &rows, &nrows, r->workers.n, &loaded, &failed,
					      &err)) {
					cli_error(r->dir, err.msg);
					status = CLI_EINPUT;
				}
				free(msg);
			}
			if (visited)
				*visited += loaded;
			v->load_failed += failed;
			if (nrows > 1 && merge_group(r, v, k, rows, nrows))
				status = CLI_EINPUT;
			for (size_t i = 0; i < nrows; i++)
				vec_free(&rows[i].r.steps);
			free(rows);
		}
		free(b.p);
	}
	return status;
}
