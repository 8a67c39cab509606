/*
 * ms_host_out.h - MindSpore's host_info outputs, byte for byte as
 * MindSpore's Profiler.analyse writes them (profile_framework "all" |
 * "time" | "memory"; computed by analysis/ms_host.h from the device's
 * host_info/host_info_<rank>.csv; docs/MINDSPORE.md "Host information"):
 *
 *   <out>/host_info/host_memory_<rank>.csv  csv.DictWriter: the 11 columns,
 *       the rows with memory_usage(kB) > 0, their text as read ("\r\n"
 *       line ends, Python's minimal quoting)
 *   <out>/host_info/timeline_<rank>.json    json.dump of the timeline items
 *       (", " and ": " separators, ensure_ascii escapes)
 *   <out>/host_info/dataset_<rank>.csv      csv.writer: Operation, Stage,
 *       Occurrences, Avg. time (us) (Python's repr of the float), Custom Info
 *
 * each only when MindSpore writes it (ms_host_writes_*). `nnscope analyse`
 * writes them into <out>/host_info/ for every MindSpore device with a
 * host_info file. The view "ms_host" (ms_host.json, /api/view?view=ms_host):
 *   {"rank", "file", "rows", "error" (why there is no output, or null),
 *    "memory": {"col_name", "object" (the first MS_HOST_VIEW_MAX rows, the
 *    CSV's text), "size", "shown", "peak_kb"} | null,
 *    "timeline": {"file", "items", "spans", "instants", "unfinished"} | null,
 *    "dataset": {"file", "col_name", "object": [[op, stage, occurrences,
 *    avg_us, custom_info]], "size"} | null, "notes": [why a file is absent]}
 * or {"rank": null, "rows": 0, ...} for a device without host_info.
 */
#ifndef NNS_OUTPUT_MS_HOST_OUT_H
#define NNS_OUTPUT_MS_HOST_OUT_H

#include <stdio.h>

#include "analysis/ms_host.h"
#include "common/err.h"
#include "output/jsonw.h"

#define MS_HOST_VIEW_MAX 20000

struct an_profile;

enum { MS_HOST_MEMORY, MS_HOST_TIMELINE, MS_HOST_DATASET };
/* The content of one of the files (MS_HOST_*) to f, whether or not
 * MindSpore writes it (ms_host_writes_* say). */
void out_ms_host_stream(FILE *f, int which, const struct ms_host_csv *h,
			const struct ms_host_result *r);
/* The three files of h / r (above) into dir (created if missing). */
int out_ms_host_files(const char *dir, const struct ms_host_csv *h, const struct ms_host_result *r,
		      struct nns_err *err);
/* The files of a MindSpore device p (p->ms, with a host_info file) into
 * <out_root>/host_info; NNS_OK and nothing for other devices. */
int out_write_ms_host(const char *out_root, const struct an_profile *p, struct nns_err *err);
/* The views.c row "ms_host". */
void out_json_ms_host_view(struct jsonw *w, const struct an_profile *p);

#endif
