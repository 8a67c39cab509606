/*
 * fuzz_ms_minddata.c - libFuzzer target for the MindData readers
 * (src/importers/ms_minddata*.c), their analyses and proposals
 * (src/analysis/ms_minddata*.c) and the JSON writer
 * (src/output/ms_minddata_json.c).
 *
 * The first input byte picks which reader gets the rest as its file
 * (0 device queue, 1 GetNext us, 2 GetNext ns, 3 pipeline CSV, 4 CPU JSON,
 * 5 pipeline_profiling workers); the other parts get small valid files, so
 * the analyses see the fuzzed part combined with real ones. Then the whole
 * document is written to memory. No crash, leak or sanitizer report is
 * allowed; a status other than OK / EFORMAT / ENOMEM is a bug.
 */
#include "importers/ms_minddata.h"
#include "output/ms_minddata_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char dq_ok[] = "1 64 1 5 10\n1 64 2 0 20\n0 1 1 4 10\n0 2 1 6 10\n";
static const char gn_ok[] = "GetNext_dequeue_wait 1 3 2\nGetNext_dequeue_wait 4 5 0\n";
static const char pl_ok[] =
    "op_id,op_type,num_workers,output_queue_size,output_queue_average_size,output_queue_length,"
    "output_queue_usage_rate,sample_interval,parent_id,children_id\n"
    "0,BatchOp,4,\"[1, 2]\",1.5,64,0.0234375,10,,[1]\n"
    "1,MapOp,8,\"[10, 10]\",10.0,128,0.078125,10,0,[2]\n"
    "2,GeneratorOp,2,\"[120, 120]\",120.0,128,0.9375,10,1,\n";
static const char cpu_ok[] = "{\"time_stamp\": [5, 10, 15, 25], \"device_info\": "
			     "{\"idle_utilization\": [1, 2, 3, 4]}, \"op_info\": [{\"op_id\": 1, "
			     "\"metrics\": {\"user_utilization\": [1, 2]}}]}";

static int ok(int rc)
{
	if (rc != NNS_OK && rc != NNS_EFORMAT && rc != NNS_ENOMEM)
		abort();
	return rc == NNS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ms_md m;
	struct ms_md_result r;
	struct nns_err err;
	struct jsonw w;
	const char *buf;
	size_t n;
	int mode;

	if (size < 1)
		return 0;
	mode = data[0] % 6;
	buf = (const char *)data + 1;
	n = size - 1;
	memset(&m, 0, sizeof(m));
	if (mode == 0)
		m.dq.present = ok(ms_md_parse_device_queue(buf, n, "f", &m.dq, &err));
	else
		m.dq.present = ok(ms_md_parse_device_queue(dq_ok, strlen(dq_ok), "f", &m.dq, &err));
	if (mode == 1 || mode == 2)
		ok(ms_md_parse_get_next(buf, n, "f", mode == 2, &m.gn, &err));
	else
		ok(ms_md_parse_get_next(gn_ok, strlen(gn_ok), "f", 0, &m.gn, &err));
	if (mode == 3)
		ok(ms_md_parse_pipeline(buf, n, "f", &m.pl, &err));
	else
		ok(ms_md_parse_pipeline(pl_ok, strlen(pl_ok), "f", &m.pl, &err));
	if (mode == 4)
		ok(ms_md_parse_cpu(buf, n, "f", &m.cpu, &err));
	else
		ok(ms_md_parse_cpu(cpu_ok, strlen(cpu_ok), "f", &m.cpu, &err));
	if (mode == 5 && m.cpu.present)
		ok(ms_md_parse_pipeline_workers(buf, n, "f", &m.cpu, &err));
	ms_md_compute(&m, &r);
	if (jsonw_init_mem(&w, 0, 0) == NNS_OK) {
		out_json_ms_minddata_data(&w, &m, &r);
		if (jsonw_finish(&w, &err) != NNS_OK && err.code != NNS_ENOMEM)
			abort();
		jsonw_release(&w);
	}
	ms_md_result_release(&r);
	ms_md_release(&m);
	return 0;
}
