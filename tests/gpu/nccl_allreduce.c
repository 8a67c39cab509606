/*
 * nccl_allreduce.c - a real NCCL job for tests/gpu/nccl_plugin.sh (owner:
 * the collector): one process drives NGPU ranks (ncclCommInitAll, one
 * communicator per visible GPU, at least 1), then ITERS x AllReduce of
 * COUNT float32 and BCAST x Broadcast of COUNT/4 bfloat16 from root 0, in
 * one ncclGroup per iteration, synchronising after each. Prints "ok ranks=N"
 * or what failed. Needs a GPU; built against the CUDA toolkit's
 * cuda_runtime.h and nccl.h.
 *
 *   nccl_allreduce [ITERS] [BCAST] [COUNT]
 */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x, what)                                                                                \
	do {                                                                                       \
		if ((x) != 0) {                                                                    \
			fprintf(stderr, "nccl_allreduce: %s failed (%d)\n", what, (int)(x));       \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20, bcast = argc > 2 ? atoi(argv[2]) : 4;
	size_t count = argc > 3 ? (size_t)atoll(argv[3]) : (size_t)1 << 20;
	int n = 0;
	ncclComm_t comms[8];
	cudaStream_t st[8];
	float *buf[8];
	void *bb[8];

	CK(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
	if (n < 1)
		return fprintf(stderr, "nccl_allreduce: no GPU\n"), 1;
	if (n > 8)
		n = 8;
	CK(ncclCommInitAll(comms, n, NULL), "ncclCommInitAll");
	for (int i = 0; i < n; i++) {
		CK(cudaSetDevice(i), "cudaSetDevice");
		CK(cudaStreamCreate(&st[i]), "cudaStreamCreate");
		CK(cudaMalloc((void **)&buf[i], count * sizeof(float)), "cudaMalloc");
		CK(cudaMalloc(&bb[i], count / 4 * 2), "cudaMalloc");
		CK(cudaMemset(buf[i], 0, count * sizeof(float)), "cudaMemset");
	}
	for (int it = 0; it < iters; it++) {
		CK(ncclGroupStart(), "ncclGroupStart");
		for (int i = 0; i < n; i++)
			CK(ncclAllReduce(buf[i], buf[i], count, ncclFloat32, ncclSum, comms[i],
					 st[i]),
			   "ncclAllReduce");
		CK(ncclGroupEnd(), "ncclGroupEnd");
		if (it < bcast) {
			CK(ncclGroupStart(), "ncclGroupStart");
			for (int i = 0; i < n; i++)
				CK(ncclBroadcast(bb[i], bb[i], count / 4, ncclBfloat16, 0, comms[i],
						 st[i]),
				   "ncclBroadcast");
			CK(ncclGroupEnd(), "ncclGroupEnd");
		}
		for (int i = 0; i < n; i++) {
			CK(cudaSetDevice(i), "cudaSetDevice");
			CK(cudaStreamSynchronize(st[i]), "cudaStreamSynchronize");
		}
	}
	for (int i = 0; i < n; i++) {
		cudaSetDevice(i);
		cudaFree(buf[i]);
		cudaFree(bb[i]);
		ncclCommDestroy(comms[i]);
	}
	printf("ok ranks=%d\n", n);
	return 0;
}
