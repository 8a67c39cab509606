/*
 * nvtx_app.c - a program instrumented with NVTX v3 only (header-only
 * nvtx3/nvToolsExt.h, no CUDA runtime, no libnnscope), for
 * tests/e2e/nvtx_inject.sh (owner: the collector): what it records under
 * NVTX_INJECTION64_PATH=libnnscope.so is checked there. Built by that
 * script: cc -I/usr/local/cuda/include nvtx_app.c -ldl -pthread.
 *
 * What it does (times are what it sleeps; the script asserts durations >=):
 *   thread "nvtx-main" (nvtxNameOsThreadA):
 *     push "outer" 20 ms { push "inner" 10 ms }           nested
 *     3 x pushW L"wide_\u00fcn\u00ef\u20ac" 2 ms           UNICODE, count 3
 *     startA "cross" ... ended by the worker after >= 15 ms (another thread)
 *     worker thread "nvtx-worker": push "worker" 5 ms, then ends "cross"
 *     markA "mark_a" x2; markEx "mark_ex" payload int64 42
 *     domain "dom": push registered "registered" 8 ms { push ascii
 *       "ascii_in_dom" 4 ms }; startEx "dom_async" 6 ms; markEx registered
 *     pushEx "pay_double" payload 2.5 (1 ms); markEx "pay_u64" 7,
 *       "pay_i32" -3, "pay_float" 1.5, "pay_u32" 9
 *     PyTorch emit_nvtx names: "aten::linear, seq = 1, op_id = 1, sizes =
 *       [[4, 3], [5, 3], [5]]" { "aten::addmm, ... sizes = [[5], [4, 3],
 *       [3, 5]], input_op_ids = [(1, 0)]" 3 ms }
 *     malformed, each must be survived: pushEx(NULL), size 0, message type
 *       99, a bogus registered handle, pushA(NULL) -> 5 unnamed ranges;
 *       a bogus domain handle with "bogus_dom" (default domain: no prefix);
 *       markA(NULL); markEx(NULL); a second domain created with the same
 *       name gives the same handle (exit 3 if not)
 *   prints "nvtx_app done" and exits 0.
 */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts))
		;
}

static uint32_t tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static nvtxEventAttributes_t attr(void)
{
	nvtxEventAttributes_t a;

	memset(&a, 0, sizeof(a));
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	return a;
}

static void *worker(void *arg)
{
	nvtxRangeId_t id = *(nvtxRangeId_t *)arg;

	nvtxNameOsThreadA(tid(), "nvtx-worker");
	nvtxRangePushA("worker");
	sleep_ms(5);
	nvtxRangePop();
	sleep_ms(10);
	nvtxRangeEnd(id); /* started on the main thread */
	return NULL;
}

int main(void)
{
	nvtxEventAttributes_t a;
	nvtxDomainHandle_t dom, dom2;
	nvtxStringHandle_t reg;
	nvtxRangeId_t id;
	pthread_t th;

	nvtxNameOsThreadA(tid(), "nvtx-main");

	nvtxRangePushA("outer");
	sleep_ms(10);
	nvtxRangePushA("inner");
	sleep_ms(10);
	nvtxRangePop();
	nvtxRangePop();

	for (int i = 0; i < 3; i++) {
		nvtxRangePushW(L"wide_\u00fcn\u00ef\u20ac");
		sleep_ms(2);
		nvtxRangePop();
	}

	id = nvtxRangeStartA("cross");
	if (pthread_create(&th, NULL, worker, &id))
		return 2;
	pthread_join(th, NULL);

	nvtxMarkA("mark_a");
	nvtxMarkA("mark_a");
	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "mark_ex";
	a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
	a.payload.llValue = 42;
	nvtxMarkEx(&a);

	dom = nvtxDomainCreateA("dom");
	dom2 = nvtxDomainCreateA("dom");
	if (dom != dom2)
		return 3;
	reg = nvtxDomainRegisterStringA(dom, "registered");
	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	nvtxDomainRangePushEx(dom, &a);
	sleep_ms(4);
	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "ascii_in_dom";
	nvtxDomainRangePushEx(dom, &a);
	sleep_ms(4);
	nvtxDomainRangePop(dom);
	nvtxDomainRangePop(dom);
	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "dom_async";
	id = nvtxDomainRangeStartEx(dom, &a);
	sleep_ms(6);
	nvtxDomainRangeEnd(dom, id);
	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = reg;
	nvtxDomainMarkEx(dom, &a);

	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "pay_double";
	a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
	a.payload.dValue = 2.5;
	nvtxRangePushEx(&a);
	sleep_ms(1);
	nvtxRangePop();
	a.message.ascii = "pay_u64";
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = 7;
	nvtxMarkEx(&a);
	a.message.ascii = "pay_i32";
	a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
	a.payload.llValue = 0;
	a.payload.iValue = -3;
	nvtxMarkEx(&a);
	a.message.ascii = "pay_float";
	a.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
	a.payload.llValue = 0;
	a.payload.fValue = 1.5f;
	nvtxMarkEx(&a);
	a.message.ascii = "pay_u32";
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
	a.payload.llValue = 0;
	a.payload.uiValue = 9;
	nvtxMarkEx(&a);

	/* PyTorch emit_nvtx's names: operators with their input shapes */
	nvtxRangePushA("aten::linear, seq = 1, op_id = 1, sizes = [[4, 3], [5, 3], [5]]");
	nvtxRangePushA("aten::addmm, seq = 2, op_id = 2, sizes = [[5], [4, 3], [3, 5]], "
		       "input_op_ids = [(1, 0)]");
	sleep_ms(3);
	nvtxRangePop();
	nvtxRangePop();

	/* malformed input: 5 unnamed ranges, no crash */
	nvtxRangePushEx(NULL);
	nvtxRangePop();
	a = attr();
	a.size = 0;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "size_zero";
	nvtxRangePushEx(&a);
	nvtxRangePop();
	a = attr();
	a.messageType = 99;
	a.message.ascii = "bad_type";
	nvtxRangePushEx(&a);
	nvtxRangePop();
	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a.message.registered = (nvtxStringHandle_t)(uintptr_t)0x1234;
	nvtxRangePushEx(&a);
	nvtxRangePop();
	nvtxRangePushA(NULL);
	nvtxRangePop();
	a = attr();
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = "bogus_dom";
	nvtxDomainRangePushEx((nvtxDomainHandle_t)(uintptr_t)0xdeadbeef, &a);
	nvtxDomainRangePop((nvtxDomainHandle_t)(uintptr_t)0xdeadbeef);
	nvtxMarkA(NULL);
	nvtxMarkEx(NULL);
	nvtxRangeEnd(0);
	nvtxDomainDestroy(dom);

	printf("nvtx_app done\n");
	return 0;
}
