/*
 * fuzz_ms_host.c - libFuzzer target for a MindSpore host_info CSV as
 * MindSpore's analysis reads it (importers/ms_host.c), the port of its
 * _parse_host_info / _calculate_dataset_execution_time (analysis/ms_host.c)
 * and the three writers (output/ms_host_out.c, to /dev/null): the whole
 * input is the CSV. Any input must give NNS_OK or an error (EFORMAT,
 * ENOMEM), never a crash, leak or sanitizer report. Seeds: ms_host_*.csv.
 */
#include "analysis/ms_host.h"
#include "importers/ms_host.h"
#include "output/ms_host_out.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_host_csv h;
	struct ms_host_result r;
	struct nns_err err;
	FILE *f;
	int rc;

	if (size > (1u << 20))
		return 0;
	nns_err_clear(&err);
	rc = ms_host_parse(&h, (const char *)data, size, &err);
	if (rc != NNS_OK) {
		if (rc != NNS_EFORMAT && rc != NNS_ENOMEM)
			abort();
		return 0;
	}
	rc = ms_host_compute(&h, &r, &err);
	if (rc == NNS_OK) {
		if ((f = fopen("/dev/null", "w")) != NULL) {
			for (int k = MS_HOST_MEMORY; k <= MS_HOST_DATASET; k++)
				out_ms_host_stream(f, k, &h, &r);
			fclose(f);
		}
		ms_host_result_release(&r);
	} else if (rc != NNS_EFORMAT && rc != NNS_ENOMEM) {
		abort();
	}
	ms_host_release(&h);
	return 0;
}
