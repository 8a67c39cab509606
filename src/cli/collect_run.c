/*
 * collect_run.c - reading `nnscope collect` output (collect.h): the runs of
 * RUN/host<N>/... merged into one run so that `nnscope analyse RUN` sees a
 * single cluster. The merged run takes ownership of the moved workers and
 * host_info paths; the emptied runs are freed here.
 */
#include "cli/collect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_collected(const char *root)
{
	char path[4096], line[64];
	FILE *f;
	int ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, COLLECT_MAPPING_FILE) >=
	    sizeof(path))
		return 0;
	if (!(f = fopen(path, "r")))
		return 0;
	ok = fgets(line, sizeof(line), f) &&
	     strncmp(line, COLLECT_MAPPING_MAGIC, strlen(COLLECT_MAPPING_MAGIC)) == 0;
	fclose(f);
	return ok;
}

/* "host<N>" or "host<N>/...": the alias length, else 0. */
static size_t alias_len(const char *name)
{
	size_t n = 4;

	if (strncmp(name, "host", 4) != 0 || name[4] < '0' || name[4] > '9')
		return 0;
	while (name[n] >= '0' && name[n] <= '9')
		n++;
	return name[n] == '\0' || name[n] == '/' ? n : 0;
}

static int cmp_worker(const void *a, const void *b)
{
	return strcmp(((const struct run_worker *)a)->name, ((const struct run_worker *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_run(const void *a, const void *b)
{
	return strcmp(((const struct run *)a)->name, ((const struct run *)b)->name);
}

static char *base_name(const char *path)
{
	size_t n = strlen(path);
	const char *s;
	char *out;

	while (n > 1 && path[n - 1] == '/')
		n--;
	s = path + n;
	while (s > path && s[-1] != '/')
		s--;
	out = malloc((size_t)(path + n - s) + 1);
	if (out) {
		memcpy(out, s, (size_t)(path + n - s));
		out[path + n - s] = '\0';
	}
	return out;
}

int collect_merge_runs(struct run_set *rs, const char *root, struct nns_err *err)
{
	struct run m;
	size_t hosts = 0, keep = 0, nw = 0, nh = 0, k = 0;
	char **names = NULL;

	if (!is_collected(root))
		return NNS_OK;
	for (size_t i = 0; i < rs->runs.n; i++)
		if (alias_len(rs->runs.v[i].name) > 0) {
			hosts++;
			nw += rs->runs.v[i].workers.n;
			nh += rs->runs.v[i].host_info.n;
		}
	if (hosts < 2)
		return NNS_OK;
	/* every allocation first: the moves below cannot fail */
	memset(&m, 0, sizeof(m));
	m.name = base_name(root);
	m.dir = strdup(root);
	names = calloc(nw ? nw : 1, sizeof(*names));
	if (!m.name || !m.dir || !names || vec_reserve(&m.workers, nw) ||
	    (nh && vec_reserve(&m.host_info, nh)) || vec_reserve(&rs->runs, rs->runs.n + 1))
		goto nomem;
	for (size_t i = 0; i < rs->runs.n; i++) {
		const struct run *r = &rs->runs.v[i];
		size_t al = alias_len(r->name);

		for (size_t w = 0; al && w < r->workers.n; w++) {
			size_t n = al + 1 + strlen(r->workers.v[w].name) + 1;

			if (!(names[k] = malloc(n)))
				goto nomem;
			snprintf(names[k++], n, "%.*s_%s", (int)al, r->name, r->workers.v[w].name);
		}
	}
	k = 0;
	for (size_t i = 0; i < rs->runs.n; i++) {
		struct run *r = &rs->runs.v[i];

		if (!alias_len(r->name)) {
			rs->runs.v[keep++] = *r;
			continue;
		}
		for (size_t w = 0; w < r->workers.n; w++) {
			free(r->workers.v[w].name);
			r->workers.v[w].name = names[k++];
			m.workers.v[m.workers.n++] = r->workers.v[w];
		}
		for (size_t h = 0; h < r->host_info.n; h++)
			m.host_info.v[m.host_info.n++] = r->host_info.v[h];
		free(r->name);
		free(r->dir);
		vec_free(&r->workers);
		vec_free(&r->host_info);
	}
	free(names);
	rs->runs.n = keep;
	qsort(m.workers.v, m.workers.n, sizeof(*m.workers.v), cmp_worker);
	if (m.host_info.n > 1)
		qsort(m.host_info.v, m.host_info.n, sizeof(*m.host_info.v), cmp_str);
	rs->runs.v[rs->runs.n++] = m;
	qsort(rs->runs.v, rs->runs.n, sizeof(*rs->runs.v), cmp_run);
	return NNS_OK;
nomem:
	for (size_t i = 0; names && i < k; i++)
		free(names[i]);
	free(names);
	vec_free(&m.workers);
	vec_free(&m.host_info);
	free(m.name);
	free(m.dir);
	run_set_release(rs);
	return nns_err_set(err, NNS_ENOMEM, "out of memory merging the hosts of %s", root);
}
