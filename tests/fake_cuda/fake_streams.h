// The fake component's streams (tests/fake_cuda): each a worker thread that runs
// the operations queued on it in order, so that what the core queues on a stream
// (copies, the stream engine's write and wait) happens later, on another thread,
// as on a GPU. A null stream runs an operation at once, in the calling thread.
#pragma once

#include <functional>

namespace fake {

// An operation: 0, or an error code that fails the stream (sticky, as CUDA's).
using StreamOp = std::function<int()>;

void *stream_new();
// Waits for the queued operations, then ends the worker.
void stream_delete(void *stream);
// 0 when idle, 600 (cudaErrorNotReady) while operations are queued, else the
// error of the operation that failed.
int stream_query(void *stream);
// Waits until the queue is empty; 0 or the stream's error.
int stream_sync(void *stream);
int stream_enqueue(void *stream, StreamOp op);

}  // namespace fake
