/*
 * kineto_doc.h - string-literal builders for small hand-laid Kineto traces
 * in unit tests: HDR opens the document, STEP/CPU/RT/KERNEL write one
 * complete ("X") event each (ts and dur in us, as Kineto). Events are joined
 * with "," by the test and the document closed with "]}".
 */
#ifndef NNS_TESTS_KINETO_DOC_H
#define NNS_TESTS_KINETO_DOC_H

#define HDR "{\"schemaVersion\":1,\"traceEvents\":["
#define STEP(n, ts, dur)                                                                           \
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" #n "\",\"pid\":1,"    \
	"\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur "}"
#define CPU(name, ts, dur)                                                                         \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts   \
	",\"dur\":" #dur "}"
#define RT(name, ts, dur, corr)                                                                    \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,"        \
	"\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}}"
#define KERNEL(name, stream, ts, dur, corr)                                                        \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream        \
	",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr ",\"device\":0,"       \
	"\"stream\":" #stream "}}"

#endif
