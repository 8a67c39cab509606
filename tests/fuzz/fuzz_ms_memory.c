/*
 * fuzz_ms_memory.c - libFuzzer target for the MindSpore device memory file
 * reader (memory_usage_<dev>.pb, src/importers/ms_memory.c), MindInsight's
 * views of it (src/analysis/ms_memory.c) and the breakdown at every node:
 * any input must give NNS_OK or an error, never a crash, leak or sanitizer
 * report. The seed tests/fuzz/seeds/ms_memory.pb is the browser test's file
 * (tests/browser/gen_ms_memory.py).
 */
#include "analysis/ms_memory.h"
#include "importers/ms_memory.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_mem_file f;
	struct ms_mem_result r;
	struct nns_err err;
	size_t bd[16];

	if (ms_mem_parse(&f, data, size, &err) != NNS_OK)
		return 0;
	if (ms_mem_compute(&r, &f, NULL, "a/Conv2D-op1", "b", &err) == NNS_OK) {
		for (size_t g = 0; g < r.graphs.n; g++)
			for (size_t i = 0; i < r.graphs.v[g].nnode && i < 64; i++)
				(void)ms_mem_breakdown(&r.graphs.v[g], i, bd, 16);
		ms_mem_result_release(&r);
	}
	ms_mem_file_release(&f);
	return 0;
}
