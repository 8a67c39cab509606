/*
 * load.c - one trace file (any format) + its host_info CSVs into a model
 * (load.h).
 */
#include "importers/load.h"
#include "importers/hostinfo.h"
#include "importers/ms_load.h"
#include "importers/ms_timeline.h"
#include "importers/nnst.h"

#include <string.h>

/* Named *.nnst: the collector's files, which only its magic can start
 * (any other content would be reported as a JSON error, which misleads). */
static int is_nnst_name(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && strcmp(path + n - 5, ".nnst") == 0;
}

int load_trace(struct model *m, const char *path, const struct kineto_opts *ko, struct nns_err *err)
{
	const struct fs_root *root = ko ? ko->root : NULL;
	const char *base = strrchr(path, '/');
	int rc, dev, prio;

	if (ms_match_file(base ? base + 1 : path, &dev, &prio)) {
		rc = ms_load_device(m, path, ko, err);
	} else if (mstl_is_rank_dir(root, path)) {
		rc = mstl_load_rank(m, path, ko, err); /* a rank of an msprof timeline */
	} else {
		if (model_init(m))
			return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
		if (nnst_is_trace_file_in(root, path))
			rc = nnst_load_file_in(root, path, m, err);
		else if (is_nnst_name(path))
			rc = nns_err_set(
			    err, NNS_EFORMAT,
			    "%s: byte 0: not an nnscope trace: expected the NNSTRACE magic "
			    "at the start of a .nnst file",
			    path);
		else
			rc = kineto_load_file(path, m, ko, err);
		if (rc && rc != NNS_ETRUNC)
			model_release(m);
	}
	if (rc == NNS_OK || rc == NNS_ETRUNC)
		m->root = root; /* its side files are read beneath it too */
	return rc;
}

void load_host_info(struct model *m, const struct run *r,
		    void (*warn)(void *ctx, const char *path, const char *msg), void *ctx)
{
	struct ms_src ms;
	int is_ms = ms_model_src(m, &ms);

	for (size_t i = 0; r && i < r->host_info.n; i++) {
		const char *path = r->host_info.v[i], *base = strrchr(path, '/');
		int64_t rank = hostinfo_file_rank(base ? base + 1 : path);
		struct nns_err err;

		if (is_ms) {
			/* a MindSpore device: rank = device id; a lone file is anyone's */
			if (r->host_info.n != 1 && rank != ms.dev)
				continue;
		} else if (m->pid < 0 && r->workers.n != 1 &&
			   !(rank >= 0 && rank == m->dist_rank)) {
			continue;
		}
		nns_err_clear(&err);
		if (hostinfo_load_file(path, m, m->pid, &err) && warn)
			warn(ctx, path, err.msg);
	}
}
