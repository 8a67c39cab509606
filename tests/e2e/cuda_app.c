/*
 * cuda_app.c - a "CUDA program" for tests/e2e/cupti_inject.sh (owner: the
 * collector's tests), without a GPU. It does what libcuda does for an
 * injection: dlopen($CUDA_INJECTION64_PATH) and call its
 * InitializeInjection(); then it "launches" work through the fake CUPTI
 * (tests/e2e/fake_cupti.c, loaded from $FAKE_CUPTI_HOOK, else
 * $NNSCOPE_CUPTI_LIB) on two
 * threads, as a framework would:
 *   thread A: N kernels "ampere_sgemm_128x64_nn" (grid 64, block 256),
 *             each inside an nns range "aten::mm" (nns_push_str/nns_pop
 *             found with dlsym, so libnnscope is not linked: under
 *             `nnscope run` it is preloaded)
 *   thread B: N kernels "vectorized_elementwise_kernel" (grid 8, block
 *             128), each followed by a host-to-device copy of
 *             4096 * (i + 1) bytes
 * and prints "tid A <tid>" and "tid B <tid>". It ends without flushing
 * anything (the collector's exit path must), or, with --abort, sleeps
 * 400 ms and aborts, or, with --wait, prints "ready" and sleeps 30 s (for
 * a SIGTERM).
 *
 *   cuda_app [--n N] [--abort | --wait]
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int (*launch_fn)(const char *kernel, uint32_t grid, uint32_t block, uint64_t copy);

static launch_fn launch;
static void (*push)(const char *);
static void (*pop)(void);
static int n = 50;

static void *thread_a(void *arg)
{
	(void)arg;
	printf("tid A %ld\n", (long)syscall(SYS_gettid));
	for (int i = 0; i < n; i++) {
		if (push)
			push("aten::mm");
		launch("ampere_sgemm_128x64_nn", 64, 256, 0);
		if (pop)
			pop();
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	printf("tid B %ld\n", (long)syscall(SYS_gettid));
	for (int i = 0; i < n; i++)
		launch("vectorized_elementwise_kernel", 8, 128, 4096u * (uint64_t)(i + 1));
	return NULL;
}

int main(int argc, char **argv)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH"), *fake = getenv("FAKE_CUPTI_HOOK");
	int do_abort = 0, do_wait = 0;

	if (!fake)
		fake = getenv("NNSCOPE_CUPTI_LIB");
	pthread_t a, b;
	void *h, *sym;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (strcmp(argv[i], "--abort") == 0)
			do_abort = 1;
		else if (strcmp(argv[i], "--wait") == 0)
			do_wait = 1;
	}
	if (inj && *inj) { /* what libcuda does in cuInit */
		int (*init)(void);

		if (!(h = dlopen(inj, RTLD_NOW)) || !(sym = dlsym(h, "InitializeInjection"))) {
			fprintf(stderr, "cuda_app: cannot load %s\n", inj);
			return 2;
		}
		memcpy(&init, &sym, sizeof(sym));
		printf("InitializeInjection %d\n", init());
	}
	if (!fake || !(h = dlopen(fake, RTLD_NOW)) || !(sym = dlsym(h, "fake_cupti_launch"))) {
		fprintf(stderr, "cuda_app: no fake CUPTI (NNSCOPE_CUPTI_LIB)\n");
		return 2;
	}
	memcpy(&launch, &sym, sizeof(sym));
	if ((sym = dlsym(RTLD_DEFAULT, "nns_push_str")))
		memcpy(&push, &sym, sizeof(sym));
	if ((sym = dlsym(RTLD_DEFAULT, "nns_pop")))
		memcpy(&pop, &sym, sizeof(sym));
	fflush(stdout);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&b, NULL, thread_b, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	fflush(stdout);
	if (do_wait) {
		struct timespec ts = {30, 0};

		printf("ready\n");
		fflush(stdout);
		nanosleep(&ts, NULL);
	}
	if (do_abort) {
		struct timespec ts = {0, 400 * 1000000L};

		nanosleep(&ts, NULL);
		abort();
	}
	return 0;
}
