/// Minimal stand-in for <pthreadpool.h> (not shipped by Debian's libxnnpack-dev): xnnpack.h only
/// needs the opaque handle type; the benchmark always passes a null thread pool (single thread).
#pragma once
typedef struct pthreadpool* pthreadpool_t;
