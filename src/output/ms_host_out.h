/*
 * ms_host_out.h - the host_info rows of a MindSpore device
 * (host_info/host_info_<rank>.csv, read into model.host by
 * importers/hostinfo.c) split out as MindSpore's documentation describes
 * Profiler.analyse's output for profile_framework ("all" | "time" |
 * "memory"; docs/MINDSPORE.md "Host information"):
 *
 *   host_memory.csv     (MindSpore: host_info/host_memory_<rank>.csv) the rows
 *                       whose memory_usage(kB) is not 0 (0 = "no memory
 *                       collected at this stage"), in file order, with the
 *                       host_info header: tid,pid,parent_pid,module_name,
 *                       event,stage,level,start_end,custom_info,
 *                       memory_usage(kB),time_stamp(us)
 *   host_timeline.json  (MindSpore: host_info/timeline_<rank>.json, "for
 *                       chrome://tracing") a Chrome trace in µs of the
 *                       CSV's own time_stamp(us): per (pid, tid, module,
 *                       event, stage) in time order, a start (start_end 0)
 *                       and the next end (1) are one "X" event named
 *                       "<event>::<stage>", cat = module_name, args
 *                       module_name / level / custom_info (an end closes the
 *                       latest open start; unmatched ones are counted, not
 *                       drawn); start_end 2 is an "i" instant; each row with
 *                       memory is a "C" counter "Host memory (kB)" of its pid.
 *                       Rows without a time stamp are left out.
 *
 * `nnscope analyse` writes both into a MindSpore device's directory when it
 * has host_info rows (the memory file only when a row has memory); the view
 * "ms_host" (ms_host.json, /api/view?view=ms_host) is
 *   {"rows": n, "memory": {"col_name": [the 11 columns], "object": [[...]]
 *    (first MS_HOST_VIEW_MAX rows), "size", "shown", "peak_kb"} | null,
 *    "timeline": {"file","spans","instants","counters","unmatched_starts",
 *    "unmatched_ends"} | null, "dataset": null, "dataset_note": text}.
 * dataset_<rank>.csv is not written: its definition (MindSpore's splitter)
 * was not found in the public source searched (dataset_note says so).
 */
#ifndef NNS_OUTPUT_MS_HOST_OUT_H
#define NNS_OUTPUT_MS_HOST_OUT_H

#include <stddef.h>

#include "common/err.h"
#include "model/model.h"
#include "output/jsonw.h"

#define MS_HOST_VIEW_MAX 20000
#define MS_HOST_DATASET_NOTE                                                                       \
	"dataset_<rank>.csv is not split out: MindSpore's definition of it was not found in the "  \
	"public source (docs/MINDSPORE.md)"

struct an_profile;

struct ms_host_counts {
	size_t spans, instants, counters, unmatched_starts, unmatched_ends;
};

/* Rows of m with memory_usage(kB) != 0. */
size_t ms_host_memory_rows(const struct model *m);
/* Writes m's host timeline (above) as one JSON object; counts into *n.
 * NNS_OK or NNS_ENOMEM (nothing written then). */
int ms_host_timeline(struct jsonw *w, const struct model *m, struct ms_host_counts *n);
/* The files above into dir, for a MindSpore device (p->ms) with host rows. */
int out_write_ms_host(const char *dir, const struct an_profile *p, struct nns_err *err);
/* The views.c row "ms_host". */
void out_json_ms_host_view(struct jsonw *w, const struct an_profile *p);

#endif
