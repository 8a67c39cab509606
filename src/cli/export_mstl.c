/*
 * export_mstl.c - `nnscope export` of an msprof cluster timeline
 * (export_mstl.h).
 */
#include "cli/export_mstl.h"
#include "cli/cli.h"
#include "common/buf.h"
#include "importers/ms_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_msprof_run(const struct run *r)
{
	for (size_t i = 0; i < r->workers.n; i++)
		if (!r->workers.v[i].spans.n ||
		    !mstl_is_rank_dir(NULL, r->workers.v[i].spans.v[0].path))
			return 0;
	return r->workers.n > 0;
}

const struct run *export_mstl_run(const struct run_set *rs, const struct mstl_args *a,
				  const char *worker)
{
	const struct run *found = NULL;
	size_t n = 0;

	for (size_t i = 0; i < rs->runs.n; i++)
		if (is_msprof_run(&rs->runs.v[i])) {
			found = &rs->runs.v[i];
			n++;
		}
	if (n != 1)
		return NULL;
	if (worker && run_find_worker(found, worker))
		return found;
	if (rs->runs.n == 1 || a->ranks || a->subgraphs || a->summary || a->apart || a->detail)
		return found;
	return NULL;
}

/* "0,2,5" into v (at most MSTL_MODELS_MAX); -1 when malformed. */
static int parse_list(const char *s, int *v)
{
	int n = 0;

	while (*s) {
		char *end;
		long x = strtol(s, &end, 10);

		if (end == s || x < 0 || x > 1000000 || n == MSTL_MODELS_MAX ||
		    (*end && *end != ','))
			return -1;
		v[n++] = (int)x;
		s = *end ? end + 1 : end;
	}
	return n;
}

int export_mstl(const struct run *r, const struct mstl_args *a, const char *worker, const char *out,
		int quiet)
{
	struct mstl_ranks rs;
	struct mstl_opts o;
	struct nns_err err;
	struct buf b;
	FILE *f;
	int rc, ok, to_stdout;

	memset(&o, 0, sizeof(o));
	if (a->summary && a->detail) {
		cli_error(NULL, "--summary and --detail: choose one");
		return CLI_EINPUT;
	}
	o.detail = !a->summary;
	o.apart = a->apart;
	if ((a->ranks && (o.nranks = parse_list(a->ranks, o.ranks)) <= 0) ||
	    (a->subgraphs && (o.nmodels = parse_list(a->subgraphs, o.models)) <= 0)) {
		cli_error(NULL, "--rank / --subgraph: a comma-separated list of numbers");
		return CLI_EINPUT;
	}
	memset(&rs, 0, sizeof(rs));
	for (size_t i = 0; i < r->workers.n; i++) {
		const struct run_worker *w = &r->workers.v[i];
		struct mstl_rank k;

		if (worker && strcmp(w->name, worker) != 0)
			continue;
		k.dir = w->spans.v[0].path;
		mstl_rank_info(NULL, k.dir, &k.rank, &k.offset_ns);
		if (vec_push(&rs.v, k)) {
			vec_free(&rs.v);
			cli_error(NULL, "out of memory");
			return CLI_EINPUT;
		}
	}
	if (!rs.v.n) {
		cli_error(r->dir, "no such worker (the ranks are rank_<id>)");
		return CLI_EINPUT;
	}
	buf_init(&b, 0);
	nns_err_clear(&err);
	rc = mstl_write(&b, NULL, &rs, &o, &err);
	vec_free(&rs.v); /* the dirs are the run's */
	if (rc) {
		cli_error(NULL, err.msg);
		buf_free(&b);
		return CLI_EINPUT;
	}
	to_stdout = strcmp(out, "-") == 0;
	f = to_stdout ? stdout : fopen(out, "w");
	ok = f && fwrite(b.p, 1, b.len, f) == b.len;
	if (f && !to_stdout)
		ok = fclose(f) == 0 && ok;
	else if (f)
		ok = fflush(f) == 0 && ok;
	if (!ok) {
		cli_error(out, "cannot write");
		buf_free(&b);
		return CLI_EINPUT;
	}
	if (!quiet && !to_stdout)
		fprintf(stderr,
			"%s: msprof timeline of %zu rank(s), %s, sub-graphs %s, %zu bytes\n", out,
			r->workers.n, o.detail ? "detail" : "summary", o.apart ? "apart" : "merged",
			b.len);
	buf_free(&b);
	return CLI_OK;
}
