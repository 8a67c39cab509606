/*
 * fuzz_trace.c - libFuzzer target for the analyses and the Trace view's
 * level-of-detail index (src/trace) on hostile traces: each input is imported as a
 * Kineto trace; when that keeps a model, every analysis runs, the trace
 * index is built, and meta / window / event / summary queries run with
 * windows, pixel widths, track filters and event ids taken from the
 * input's last bytes (including empty, huge and inverted windows). Every
 * answer must be valid JSON for the writer (jsonw_finish succeeds) or a
 * clean NNS_EINVAL / NNS_ENOTFOUND; nothing may crash, hang, leak or trip
 * a sanitizer.
 */
#include "analysis/analysis.h"
#include "importers/kineto.h"
#include "output/jsonw.h"
#include "trace/trace_index.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads 8 bytes of the input's tail as a signed number (wrapping). */
static int64_t tail64(const uint8_t *data, size_t size, size_t k)
{
	uint64_t v = 0;

	for (size_t i = 0; i < 8; i++) {
		size_t at = size > k * 8 + i ? size - 1 - (k * 8 + i) : 0;

		v = (v << 8) | (size ? data[at] : 0);
	}
	return (int64_t)v;
}

static void finish(struct jsonw *w, int rc)
{
	if (rc == NNS_OK && jsonw_finish(w, NULL) != NNS_OK && w->err != NNS_ENOMEM)
		__builtin_trap(); /* the query wrote invalid JSON */
	if (rc != NNS_OK && rc != NNS_EINVAL && rc != NNS_ENOTFOUND && rc != NNS_ENOMEM)
		__builtin_trap();
	jsonw_release(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kineto_opts o = {.threads = 1};
	struct trace_index *ix = NULL;
	struct an_profile p;
	struct nns_err err;
	struct model m;
	struct jsonw w;
	int rc;

	if (model_init(&m))
		return 0;
	rc = kineto_load_buffer((const char *)data, size, "fuzz.json", &m, &o, &err);
	if (rc != NNS_OK && rc != NNS_ETRUNC) {
		model_release(&m);
		return 0;
	}
	memset(&p, 0, sizeof(p));
	if (an_profile_compute(&p, &m, &err) == NNS_OK &&
	    trace_index_build(&ix, &m, &p, &err) == NNS_OK) {
		int64_t span = m.max_end - m.min_ts;
		int64_t a = tail64(data, size, 0), b = tail64(data, size, 1);
		uint32_t tracks[3] = {(uint32_t)a & 7, (uint32_t)(a >> 8) & 7,
				      (uint32_t)b & 0xffff};
		struct trace_window_q qs[] = {
		    {0, span + 1, 1920, NULL, 0},
		    {0, span + 1, 1, NULL, 0},
		    {a % (span + 2), a % (span + 2) + 1 + (b & 0xffffff), (int)(b % 9000), NULL, 0},
		    {b, a, (int)(a & 0x1fff), tracks, 1 + (size_t)(b & 1)},
		    {INT64_MIN / 4, INT64_MAX / 4, 8192, tracks, 3},
		};

		if (jsonw_init_mem(&w, 0, 0) == NNS_OK) {
			trace_meta_json(ix, &w);
			finish(&w, NNS_OK);
		}
		for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
			if (jsonw_init_mem(&w, 0, 0) != NNS_OK)
				break;
			finish(&w, trace_window_json(ix, &qs[i], &w, &err));
		}
		for (int64_t id = -1; id < 4; id++) {
			if (jsonw_init_mem(&w, 0, 0) != NNS_OK)
				break;
			finish(&w, trace_event_json(ix, id < 3 ? id : (a & 0xfffff), &w, &err));
		}
		if (jsonw_init_mem(&w, 0, 0) == NNS_OK)
			finish(&w, trace_summary_json(ix, a % (span + 2), b, tracks,
						      (size_t)(b & 3), &w, &err));
	}
	trace_index_free(ix);
	an_profile_release(&p);
	model_release(&m);
	return 0;
}
