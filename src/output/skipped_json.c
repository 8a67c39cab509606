/*
 * skipped_json.c - <dir>/skipped.json: the files under an analysed path
 * that discovery left out (not traces, empty, unreadable), each with the
 * reason, so that tools see what `nnscope analyse` printed on stderr.
 * Written only when something was skipped; otherwise a skipped.json left
 * in dir by an earlier analysis is removed, so the directory never lists
 * files this analysis did not skip. Keys are in docs/CLI.md.
 */
#include "output/outfile.h"
#include "output/output.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

struct skipped {
	const struct out_skip *v;
	size_t n, more;
};

static void skipped_fn(struct jsonw *w, const void *arg)
{
	const struct skipped *sk = arg;

	jsonw_obj_begin(w);
	jsonw_key(w, "skipped");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < sk->n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "path", sk->v[i].path);
		jsonw_kstr(w, "reason", sk->v[i].reason);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "more", (int64_t)sk->more);
	jsonw_obj_end(w);
}

int out_write_skipped(const char *dir, const struct out_skip *v, size_t n, size_t more,
		      int pretty_depth, struct nns_err *err)
{
	struct skipped sk = {v, n, more};

	if (n == 0 && more == 0) {
		char path[OUT_PATH_MAX];
		int rc = out_join(path, sizeof(path), dir, "skipped.json", err);

		if (rc)
			return rc;
		if (unlink(path) != 0 && errno != ENOENT)
			return nns_err_set(err, NNS_EIO, "%s: cannot remove the stale file: %s",
					   path, strerror(errno));
		return NNS_OK;
	}
	return out_json_file(dir, "skipped.json", pretty_depth ? pretty_depth : 2, skipped_fn, &sk,
			     err);
}
