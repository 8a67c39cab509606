/*
 * bench/gpu_records.c - the host cost of the CUPTI backend's record path
 * (owner: the collector): what a traced process spends, on CUPTI's
 * buffer-completed thread, per GPU activity record, and whether the writer
 * keeps up. Builds 4 MiB buffers laid out as CUDA 13's records (a
 * CUpti_ActivityAPI launch + a CUpti_ActivityKernel10, 64 distinct kernel
 * names) and hands them to nns_cupti_decode with the built-in CUDA 13
 * walker and nns_gpu_submit as the sink: the same code the callback runs,
 * minus libcupti's own walk. First the decoding alone (a sink that drops
 * the records): the CPU a traced process spends per record; then the same
 * buffers into a profiler writing a .nnst file in a temporary directory,
 * as fast as they come, so the writer's drain rate limits it (the
 * producer waits when the queue is full). Prints key=value lines
 * (bench/gpu_records reads them): records, decode_ns_per_record,
 * end_to_end_records_per_s, dropped, trace_bytes, bytes_per_record, and
 * the trace directory (the script analyses it, then removes it).
 *
 *   build/bench/gpu_records [PAIRS_MILLIONS]   (default 2: 4 M records)
 */
#include "collector/collector.h"
#include "collector/cupti_abi.h"
#include "collector/tsc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define BUF (4u << 20)

static void put32(uint8_t *r, size_t off, uint32_t v)
{
	memcpy(r + off, &v, 4);
}

static void put64(uint8_t *r, size_t off, uint64_t v)
{
	memcpy(r + off, &v, 8);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void count_only(void *arg, const struct nnst_gpu *r, size_t n)
{
	(void)r;
	*(size_t *)arg += n;
}

static void sink(void *arg, const struct nnst_gpu *r, size_t n)
{
	size_t *dropped = arg;

	*dropped += n - nns_gpu_submit(r, n);
}

/* Fills buf with launch + kernel pairs starting at correlation *corr;
 * returns the valid bytes. */
static size_t fill(uint8_t *buf, uint32_t *corr, uint64_t *t, char names[64][48])
{
	size_t api = nns_cupti_record_size13(NNS_CK_RUNTIME);
	size_t ker = nns_cupti_record_size13(NNS_CK_CONCURRENT_KERNEL), off = 0;

	while (off + api + ker <= BUF) {
		uint8_t *a = buf + off, *k = buf + off + api;
		const char *name = names[*corr % 64];

		memset(a, 0, api);
		put32(a, 0, NNS_CK_RUNTIME);
		put32(a, NNS_AO_CBID, 211); /* cudaLaunchKernel */
		put64(a, NNS_AO_START, *t);
		put64(a, NNS_AO_END, *t + 1);
		put32(a, NNS_AO_PID, 4242);
		put32(a, NNS_AO_TID, 4243);
		put32(a, NNS_AO_CORR, *corr);
		memset(k, 0, ker);
		put32(k, 0, NNS_CK_CONCURRENT_KERNEL);
		k[NNS_KO_REGS] = 64;
		put64(k, NNS_KO_START, *t + 2);
		put64(k, NNS_KO_END, *t + 3);
		put32(k, NNS_KO_STREAM, 7);
		put32(k, NNS_KO_GRID, 132);
		put32(k, NNS_KO_GRID + 4, 1);
		put32(k, NNS_KO_GRID + 8, 1);
		put32(k, NNS_KO_BLOCK, 256);
		put32(k, NNS_KO_BLOCK + 4, 1);
		put32(k, NNS_KO_BLOCK + 8, 1);
		put32(k, NNS_KO_CORR, *corr);
		memcpy(k + NNS_KO_NAME, &name, sizeof(name));
		(*corr)++;
		*t += 4; /* raw ticks: the whole run fits in the profiler's window */
		off += api + ker;
	}
	return off;
}

int main(int argc, char **argv)
{
	double millions = argc > 1 ? atof(argv[1]) : 2.0;
	uint64_t pairs = (uint64_t)(millions * 1e6), done = 0, t;
	char dir[] = "/tmp/nnscope-gpubench.XXXXXX", names[64][48];
	struct nns_cupti_conv conv;
	struct nns_options o;
	nns_profiler *p;
	uint8_t *buf = aligned_alloc(8, BUF);
	uint32_t corr = 1;
	size_t dropped = 0, records = 0, counted = 0;
	int64_t spent = 0, decode = 0, bytes = 0;
	DIR *d;
	struct dirent *de;

	if (!buf || !mkdtemp(dir) || nns_cupti_conv_init(&conv)) {
		fprintf(stderr, "gpu_records: setup failed\n");
		return 1;
	}
	for (int i = 0; i < 64; i++)
		snprintf(names[i], sizeof(names[i]), "void gemm_kernel_%d<128, 64, 8>(float*)", i);
	nns_options_init(&o);
	snprintf(o.output_path, sizeof(o.output_path), "%s", dir);
	if (nns_create(&p, &o)) {
		fprintf(stderr, "gpu_records: %s\n", nns_last_error(NULL));
		return 1;
	}
	conv.flags = NNST_GPUF_HOSTCLOCK;
	/* the collector's raw clock, after the profiler started */
	t = nns_now();
	while (done < pairs) { /* decoding alone */
		size_t valid = fill(buf, &corr, &t, names), n;
		int64_t t0 = now_ns();

		n = nns_cupti_decode(&conv, buf, valid, NULL, count_only, &counted);
		decode += now_ns() - t0;
		done += n / 2;
	}
	done = 0;
	while (done < pairs) {
		size_t valid = fill(buf, &corr, &t, names), n;
		int64_t t0 = now_ns();

		n = nns_cupti_decode(&conv, buf, valid, NULL, sink, &dropped);
		spent += now_ns() - t0;
		records += n;
		done += n / 2;
	}
	nns_destroy(p);
	nns_cupti_conv_release(&conv);
	free(buf);
	if ((d = opendir(dir))) {
		while ((de = readdir(d))) {
			char path[600];
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (strstr(de->d_name, ".nnst") && stat(path, &st) == 0)
				bytes += st.st_size;
		}
		closedir(d);
	}
	printf("records %zu\n", records);
	printf("decode_ns_per_record %.1f\n", (double)decode / (double)counted);
	printf("end_to_end_records_per_s %.0f\n", (double)records / ((double)spent / 1e9));
	printf("dropped %zu\n", dropped);
	printf("trace_bytes %lld\n", (long long)bytes);
	printf("bytes_per_record %.1f\n", (double)bytes / (double)(records - dropped));
	printf("dir %s\n", dir);
	return 0;
}
