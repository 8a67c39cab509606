/*
 * registry_runs.c - the /api/runs document of `nnscope serve`
 * (docs/SERVER.md): every run found by the last scan, its kind, newest
 * trace time and workers, which of them are live (live_entries.h), and
 * the files left out and why. Written under registry.mu at each rescan
 * that changed something (registry.c, merge_locked).
 */
#include "server/registry_int.h"

#include "common/strhash.h"
#include "importers/run.h"
#include "output/jsonw.h"
#include "server/live_entries.h"
#include "server/scan.h"

#include <stdlib.h>
#include <string.h>

/* Whether the trace at path is live (caller holds mu). */
static int path_live(struct registry *r, const char *path)
{
	const struct reg_entry *e = reg_entry_by_path_locked(r, path);

	return e && e->live;
}

void reg_runs_doc_locked(struct registry *r, const struct run_set *rs)
{
	struct jsonw w;
	char *doc;
	size_t len = 0;

	if (jsonw_init_mem(&w, 0, 0))
		return;
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "logdir", r->logdir);
	jsonw_kint(&w, "generation", (int64_t)r->generation);
	jsonw_key(&w, "runs");
	jsonw_arr_begin(&w);
	for (size_t i = 0; rs && i < rs->runs.n; i++) {
		const struct run *run = &rs->runs.v[i];
		int nnst = 0, kin = 0, any = 0, run_live = 0;
		int64_t mtime_ms; /* of its newest trace file: the Diff view's default order */

		for (size_t j = 0; j < run->workers.n; j++)
			any |= run->workers.v[j].spans.n > 0;
		if (!any)
			continue; /* every file of it pointed out of the logdir */
		mtime_ms = scan_run_mtime_ms(&r->root, run);
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "name", run->name);
		if (mtime_ms > 0)
			jsonw_kint(&w, "mtime_ms", mtime_ms);
		jsonw_key(&w, "workers");
		jsonw_arr_begin(&w);
		for (size_t j = 0; j < run->workers.n; j++) {
			const struct run_worker *wk = &run->workers.v[j];
			int live = 0;

			if (wk->spans.n == 0)
				continue; /* its files pointed out of the logdir */
			jsonw_obj_begin(&w);
			jsonw_kstr(&w, "name", wk->name);
			jsonw_key(&w, "spans");
			jsonw_arr_begin(&w);
			for (size_t k = 0; k < wk->spans.n; k++) {
				const char *p = wk->spans.v[k].path;

				if (live_is_nnst(p))
					nnst = 1;
				else
					kin = 1;
				live |= path_live(r, p);
				if (wk->spans.v[k].name)
					jsonw_str(&w, wk->spans.v[k].name);
			}
			jsonw_arr_end(&w);
			if (live)
				jsonw_kbool(&w, "live", 1);
			run_live |= live;
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_kstr(&w, "kind",
			   run_is_mindspore(run) ? "mindspore"
			   : nnst && kin	 ? "mixed"
			   : nnst		 ? "nnscope"
						 : "kineto");
		if (run_live)
			jsonw_kbool(&w, "live", 1);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	/* files left out, links that resolve outside the logdir among them */
	jsonw_key(&w, "skipped");
	jsonw_arr_begin(&w);
	for (size_t i = 0; rs && i < rs->skipped.n; i++) {
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "path", rs->skipped.v[i].path);
		jsonw_kstr(&w, "reason", rs->skipped.v[i].reason);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	if (rs && rs->skipped_more)
		jsonw_kint(&w, "skipped_more", (int64_t)rs->skipped_more);
	jsonw_obj_end(&w);
	if (jsonw_finish(&w, NULL) == NNS_OK && (doc = jsonw_take(&w, &len)) != NULL) {
		free(r->runs_json);
		r->runs_json = doc;
		r->runs_json_len = len;
	}
	jsonw_release(&w);
}

uint64_t reg_skipped_sig(const struct run_set *rs)
{
	uint64_t h = strhash_add(STRHASH_INIT, &rs->skipped_more, sizeof(rs->skipped_more));

	for (size_t i = 0; i < rs->skipped.n; i++) {
		h = strhash_add(h, rs->skipped.v[i].path, strlen(rs->skipped.v[i].path) + 1);
		h = strhash_add(h, rs->skipped.v[i].reason, strlen(rs->skipped.v[i].reason) + 1);
	}
	return h;
}
