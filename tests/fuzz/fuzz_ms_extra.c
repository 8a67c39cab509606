/*
 * fuzz_ms_extra.c - libFuzzer target for the MindSpore FLOPs, framework_raw
 * op_info, AICPU and dynamic-shape readers and the small JSON reader: any
 * input must give NNS_OK or an error, never a crash, leak or sanitizer
 * report. The first byte picks the parser.
 */
#include "importers/ms_aicpu.h"
#include "importers/ms_dynshape.h"
#include "importers/ms_flops.h"
#include "importers/ms_json.h"
#include "importers/ms_opdetail.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nns_err err;
	const char *p = (const char *)data + 1;
	size_t n = size ? size - 1 : 0;

	if (!size)
		return 0;
	switch (data[0] % 7) {
	case 0: {
		struct msj j;

		if (msj_parse(&j, p, n, "f", &err) == NNS_OK)
			msj_release(&j);
		break;
	}
	case 1:
	case 2:
	case 3: {
		struct ms_flops f;

		ms_flops_init(&f);
		if (data[0] % 7 == 1)
			ms_flops_parse_ops(&f, p, n, "f", &err);
		else if (data[0] % 7 == 2)
			ms_flops_parse_summary(&f, p, n, "f", &err);
		else
			ms_flops_parse_scope(&f, p, n, "f", &err);
		if (f.has_ops && f.ops.n)
			ms_flops_find(&f, ms_flops_str(&f, f.ops.v[0].name));
		ms_flops_release(&f);
		break;
	}
	case 4: {
		struct ms_fw fw;

		if (ms_fw_parse(&fw, p, n, "f", &err) == NNS_OK) {
			if (fw.ops.n)
				ms_fw_find(&fw, ms_fw_str(&fw, fw.ops.v[0].name));
			ms_fw_release(&fw);
		}
		break;
	}
	case 5: {
		struct ms_aicpu a;

		if (data[0] & 0x80)
			ms_aicpu_parse_txt(&a, p, n, "f", &err);
		else
			ms_aicpu_parse_csv(&a, p, n, "f", &err);
		ms_aicpu_release(&a);
		break;
	}
	default: {
		struct ms_ds d;

		if (ms_ds_parse(&d, p, n, "f", &err) == NNS_OK)
			ms_ds_release(&d);
		break;
	}
	}
	return 0;
}
