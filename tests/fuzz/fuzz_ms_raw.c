/*
 * fuzz_ms_raw.c - libFuzzer target for the raw Ascend job converters
 * (ms_raw_*.c: training trace, task / graph description, hwts log with the
 * timeline rows turned into model kernels, AICPU) and the GPU-mode / host
 * CPU op tables (ms_optab.c): any input must give NNS_OK or an error (and
 * warnings), never a crash, leak or sanitizer report. The first byte picks
 * the parser; for the framework and hwts cases the rest is split at its
 * first NUL into the task description and the second input (graph file or
 * hwts log).
 */
#include "importers/ms_optab.h"
#include "importers/ms_raw.h"
#include "importers/ms_raw_int.h"
#include "model/model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

/* Keeps b as the in-memory file name of r (as ms_raw.c does). */
static void keep(struct ms_raw *r, const char *name, struct buf *b)
{
	struct ms_raw_file f;

	if (!b->len)
		return;
	snprintf(f.name, sizeof(f.name), "%s", name);
	f.len = b->len;
	if (!(f.text = buf_take(b)))
		return;
	if (vec_push(&r->files, f))
		free(f.text);
}

static void framework_and_hwts(const char *p, size_t n, int hwts, int vm)
{
	const char *z = memchr(p, 0, n);
	size_t na = z ? (size_t)(z - p) : n, nb = z ? n - na - 1 : 0;
	struct ms_raw r = {0};
	struct ms_raw_fw fw = {0};
	struct buf a, b, tl, mc;

	buf_init(&a, 0);
	buf_init(&b, 0);
	buf_init(&tl, 0);
	buf_init(&mc, 0);
	if (ms_raw_fw_tasks(&fw, p, na, "tasks", &r) == NNS_OK) {
		if (!hwts) {
			ms_raw_fw_header(&a);
			if (ms_raw_fw_graph(&fw, z ? z + 1 : "", nb, vm, "graph", &a, &r) == NNS_OK)
				ms_raw_fw_rest(&fw, &a);
		} else if (ms_raw_hwts((const unsigned char *)(z ? z + 1 : ""), nb, "hwts", &fw, &a,
				       &b, &tl, &mc, &r) == NNS_OK) {
			struct model m;
			struct nns_err err;
			size_t added;

			keep(&r, "output_timeline_data_0.txt", &tl);
			keep(&r, "min_cycle_counter_0.txt", &mc);
			if (model_init(&m) == NNS_OK) {
				if (ms_raw_add_ops(&m, &r, 0, &added, &err) == NNS_OK)
					ms_raw_warn_model(&m, &r);
				model_release(&m);
			}
		}
	}
	ms_raw_fw_release(&fw);
	ms_raw_release(&r);
	buf_free(&a);
	buf_free(&b);
	buf_free(&tl);
	buf_free(&mc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1;
	size_t n = size ? size - 1 : 0;
	struct nns_err err;

	if (!size)
		return 0;
	switch (data[0] % 9) {
	case 0:
	case 3: {
		struct ms_raw r = {0};
		struct buf out;

		buf_init(&out, 0);
		if (data[0] % 9 == 0)
			ms_raw_trace((const unsigned char *)p, n, "trace", &out, &r);
		else
			ms_raw_aicpu(p, n, "aicpu", &out, &r);
		buf_free(&out);
		ms_raw_release(&r);
		break;
	}
	case 1:
		framework_and_hwts(p, n, 0, data[0] & 0x80);
		break;
	case 2:
		framework_and_hwts(p, n, 1, 0);
		break;
	default: {
		struct ms_optab t;

		memset(&t, 0, sizeof(t));
		ms_optab_parse(&t, (enum ms_ot_kind)(data[0] % 9 - 4), p, n, "optab", &err);
		for (size_t row = 0; t.spec && row < t.rows; row++) /* every cell is readable */
			for (int c = 0; c < t.spec->ncols; c++)
				if (t.spec->cols[c].conv == MS_OT_STR)
					sink += strlen(ms_optab_str(&t, row, c));
				else
					sink += ms_optab_num(&t, row, c) != 0;
		ms_optab_release(&t);
		break;
	}
	}
	return 0;
}
